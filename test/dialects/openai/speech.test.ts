// The OpenAI dialect driven by the official `openai` SDK over loopback: every response_format
// decoded to the right rate and length, audio streamed as it is made, server-sent events carrying
// the same PCM, and refusals the SDK raises as its own error classes.
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelId } from '../../../lib/index.js'
import type { Route } from '../../../lib/server/routes.js'
import { decodeWav, rms, s16 } from '../../helpers/audio.js'
import { ffmpegDecode } from '../../helpers/decode.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const RATE = 24000

function client(server: Running, apiKey = KEY): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${server.base}/v1`, maxRetries: 0 })
}

async function bytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer())
}

/** What the SDK raised, for assertions on its class and the OpenAI fields it read. */
async function refusal(call: Promise<unknown>): Promise<Error & { status?: number; code?: string; param?: string; type?: string }> {
  try {
    await call
  } catch (error) {
    return error as Error
  }
  throw new Error('the call succeeded')
}

/** The same speech from the engine itself, in one piece: the PCM OpenAI's `pcm` must carry. */
async function oneShot(transcript: string, voice = 'Sarah', model: ModelId = 'svc_flash_v1.5'): Promise<Buffer> {
  return engine.synthesize({ model_id: model, transcript, voice: { mode: 'id', id: voiceId(voice) }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: RATE } })
}

describe.each(ADAPTERS)('OpenAI dialect on %s: the core cases', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('speech as pcm is 24 kHz s16le mono: the engine\'s own audio of the mapped voice', async () => {
    const response = await client(server).audio.speech.create({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'pcm' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('audio/pcm')
    const pcm = await bytes(response)
    expect(pcm.length / 2 / RATE).toBeGreaterThan(3)
    expect(pcm.equals(await oneShot(TEXT))).toBe(true)
  })

  it('mp3 by default, at 24 kHz', async () => {
    const response = await client(server).audio.speech.create({ model: 'tts-1', voice: 'nova', input: TEXT })
    expect(response.headers.get('content-type')).toBe('audio/mpeg')
    const decoded = ffmpegDecode(await bytes(response), 'mp3')
    expect(decoded.codec).toBe('mp3')
    expect(decoded.sampleRate).toBe(RATE)
    expect(Math.abs(decoded.samples.length / RATE - (await oneShot(TEXT)).length / 2 / RATE)).toBeLessThan(0.1)
  })

  it('a bad key is AuthenticationError 401 invalid_api_key', async () => {
    const error = await refusal(client(server, 'sk_wrong').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello.' }))
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' })
  })

  it('an unknown voice is BadRequestError 400 on voice; an unknown model NotFoundError 404 model_not_found', async () => {
    const voice = await refusal(client(server).audio.speech.create({ model: 'tts-1', voice: 'nobody', input: 'Hello.' }))
    expect(voice).toBeInstanceOf(BadRequestError)
    expect(voice).toMatchObject({ status: 400, param: 'voice', type: 'invalid_request_error' })
    expect(voice.message).toContain('alloy')
    const model = await refusal(client(server).audio.speech.create({ model: 'tts-9', voice: 'alloy', input: 'Hello.' }))
    expect(model).toBeInstanceOf(NotFoundError)
    expect(model).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' })
  })

  it('a speed the engine cannot reach is BadRequestError 400 on speed, naming the range', async () => {
    for (const speed of [0.25, 3, 5]) {
      const error = await refusal(client(server).audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello.', speed }))
      expect(error).toBeInstanceOf(BadRequestError)
      expect(error).toMatchObject({ status: 400, param: 'speed' })
      expect(error.message).toContain('0.5 to 2')
    }
  })

  it('models.list() has OpenAI\'s names and svc-tts\'s ids', async () => {
    const ids: string[] = []
    for await (const model of client(server).models.list()) {
      expect(model).toMatchObject({ object: 'model', owned_by: 'svc-tts', created: expect.any(Number) })
      ids.push(model.id)
    }
    expect(ids).toEqual(expect.arrayContaining(['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'svc_pro_v1.0', 'svc_flash_v1.5', 'svc_flash_v1.0']))
  })
})

describe('OpenAI dialect on standalone', () => {
  let server: Running
  let openai: OpenAI
  const bearer = { authorization: `Bearer ${KEY}` }
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    openai = client(server)
  })
  afterAll(() => server.close())

  const pcmSeconds = async (model: ModelId, voice: string) => (await oneShot(TEXT, voice, model)).length / 2 / RATE

  it.each([
    ['mp3', 'mp3', 'audio/mpeg'],
    ['flac', 'flac', 'audio/flac'],
    ['opus', 'ogg', 'audio/ogg; codecs=opus'],
    ['wav', 'wav', 'audio/wav'],
  ] as const)('%s decodes to the speech\'s length at 24 kHz', async (format, extension, type) => {
    const response = await openai.audio.speech.create({ model: 'tts-1-hd', voice: 'onyx', input: TEXT, response_format: format })
    expect(response.headers.get('content-type')).toBe(type)
    const file = await bytes(response)
    const decoded = ffmpegDecode(file, extension)
    const seconds = await pcmSeconds('svc_pro_v1.0', 'Richard')
    expect(seconds).toBeGreaterThan(3)
    if (format === 'opus') {
      expect(decoded.codec).toBe('opus')
      // Opus always decodes at 48 kHz; the rate it was made at is in its header.
      expect(file.readUInt32LE(file.indexOf('OpusHead') + 12)).toBe(RATE)
      expect(Math.abs(decoded.samples.length / 48000 - seconds)).toBeLessThan(0.1)
    } else {
      expect(decoded.sampleRate).toBe(RATE)
      expect(Math.abs(decoded.samples.length / RATE - seconds)).toBeLessThan(0.1)
    }
    expect(rms(decoded.samples)).toBeGreaterThan(300)
    if (format === 'wav') expect(decodeWav(file)).toMatchObject({ sampleRate: RATE, channels: 1, bitsPerSample: 16 })
  })

  it('aac is BadRequestError 400 naming the formats svc-tts makes', async () => {
    const error = await refusal(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'aac' }))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error).toMatchObject({ status: 400, param: 'response_format' })
    expect(error.message).toContain('mp3, opus, flac, wav, pcm')
  })

  it('the body is read while it streams: the first bytes of ten sentences come well before the last', async () => {
    const input = Array.from({ length: 10 }, (_, i) => `This is sentence number ${i + 1}, and it is long enough to take a while to speak.`).join(' ')
    const started = performance.now()
    const response = await openai.audio.speech.create({ model: 'tts-1-hd', voice: 'alloy', input, response_format: 'pcm' })
    const arrivals: { at: number; bytes: number }[] = []
    for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) arrivals.push({ at: performance.now() - started, bytes: part.length })
    const total = arrivals.reduce((n, a) => n + a.bytes, 0)
    expect(total / 2 / RATE).toBeGreaterThan(30)
    expect(arrivals.length).toBeGreaterThan(5)
    // The first sentence is out while most of the synthesis is still to come.
    expect(arrivals[0]!.at).toBeLessThan(arrivals.at(-1)!.at / 3)
  })

  it('stream_format sse carries the same PCM as the plain stream, then speech.audio.done with usage', async () => {
    const plain = await bytes(await openai.audio.speech.create({ model: 'tts-1', voice: 'coral', input: TEXT, response_format: 'pcm' }))
    const response = await openai.audio.speech.create({ model: 'tts-1', voice: 'coral', input: TEXT, response_format: 'pcm', stream_format: 'sse' })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const events = (await response.text()).split('\n\n').filter(Boolean).map((block) => {
      expect(block.startsWith('data: ')).toBe(true)
      return JSON.parse(block.slice('data: '.length)) as { type: string; audio?: string; usage?: Record<string, number> }
    })
    const deltas = events.slice(0, -1)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.every((e) => e.type === 'speech.audio.delta')).toBe(true)
    expect(Buffer.concat(deltas.map((e) => Buffer.from(e.audio!, 'base64'))).equals(plain)).toBe(true)
    expect(events.at(-1)).toEqual({ type: 'speech.audio.done', usage: { input_tokens: TEXT.length, output_tokens: 0, total_tokens: TEXT.length } })
  })

  it('svc-tts\'s own model ids, voice ids and voice names, and { id } voices', async () => {
    const kal = await oneShot('Hello there.', 'Kal', 'svc_pro_v1.0')
    for (const voice of [voiceId('Kal'), 'kal', 'Kal', { id: voiceId('Kal') }, 'ash' /* mapped to Kal */]) {
      const response = await openai.audio.speech.create({ model: 'svc_pro_v1.0', voice: voice as string, input: 'Hello there.', response_format: 'pcm' })
      expect((await bytes(response)).equals(kal)).toBe(true)
    }
  })

  it('instructions and fields OpenAI does not name are accepted and ignored; null is a field left out', async () => {
    const body = { model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'pcm', instructions: 'Speak cheerfully.', stream: true, lang_code: 'a', speed: null, stream_format: null }
    const response = await fetch(`${server.base}/v1/audio/speech`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(response.status).toBe(200)
    expect((await bytes(response)).equals(await oneShot('Hello there.'))).toBe(true)
  })

  it('svc-tts markup passes through; an unknown tag is a 400 invalid_markup on input', async () => {
    const plain = await bytes(await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'One. Two.', response_format: 'pcm' }))
    const paused = await bytes(await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'One. <break time="1s"/> Two.', response_format: 'pcm' }))
    expect((paused.length - plain.length) / 2 / RATE).toBeGreaterThan(0.8)
    const error = await refusal(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'One <shout>two</shout>.' }))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error).toMatchObject({ status: 400, code: 'invalid_markup', param: 'input' })
  })

  it('input past OpenAI\'s 4096 characters, or empty, is a 400 on input', async () => {
    for (const input of ['a'.repeat(4097), '']) {
      const error = await refusal(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input }))
      expect(error).toBeInstanceOf(BadRequestError)
      expect(error).toMatchObject({ status: 400, param: 'input', code: 'invalid_request' })
    }
  })

  it('models.retrieve() of a name it has, and NotFoundError for one it has not', async () => {
    expect(await openai.models.retrieve('tts-1-hd')).toMatchObject({ id: 'tts-1-hd', object: 'model' })
    const error = await refusal(openai.models.retrieve('whisper-1'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' })
  })

  it('GET /v1/audio/voices in Open WebUI\'s shape (OpenAI\'s names, then the library, cloned voices too), honouring ?limit=', async () => {
    const cloned = await engine.voices.clone((await import('../../helpers/samples.js')).MP3_SAMPLE, { name: 'Dana', language: 'en' })
    try {
      const all = await fetch(`${server.base}/v1/audio/voices`, { headers: bearer })
      expect(all.status).toBe(200)
      const { voices } = (await all.json()) as { voices: { id: string; name: string }[] }
      expect(voices.slice(0, 13).map((v) => v.id)).toEqual(['alloy', 'coral', 'marin', 'nova', 'sage', 'shimmer', 'cedar', 'echo', 'onyx', 'ballad', 'fable', 'ash', 'verse'])
      expect(voices).toContainEqual({ id: voiceId('Sarah'), name: 'Sarah' })
      expect(voices).toContainEqual({ id: cloned.voice_id, name: 'Dana' })
      // What the listing offers, speaks.
      const dana = await openai.audio.speech.create({ model: 'tts-1', voice: cloned.voice_id, input: 'Hello.', response_format: 'pcm' })
      expect(rms(s16(await bytes(dana)))).toBeGreaterThan(300)
      const some = (await (await fetch(`${server.base}/v1/audio/voices?limit=15`, { headers: bearer })).json()) as { voices: unknown[] }
      expect(some.voices).toHaveLength(15)
      const bad = await fetch(`${server.base}/v1/audio/voices?limit=0`, { headers: bearer })
      expect(bad.status).toBe(400)
      expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('limit')
    } finally {
      await engine.voices.delete(cloned.voice_id)
    }
  })

  it('GET /v1/audio/models in Open WebUI\'s shape', async () => {
    const response = await fetch(`${server.base}/v1/audio/models`, { headers: bearer })
    expect(await response.json()).toEqual({ models: expect.arrayContaining([{ id: 'tts-1' }, { id: 'svc_flash_v1.5' }]) })
  })
})

describe('the dialect\'s options', () => {
  it('voices and models map as configured; `openai: false` mounts none of its routes', async () => {
    const configured = await start('standalone', { engine, keys: TEST_KEYS, dialects: { openai: { voices: { alloy: 'Richard', Robot: voiceId('Kal') }, models: { 'my-tts': 'svc_pro_v1.0' } } } })
    const off = await start('standalone', { engine, keys: TEST_KEYS, dialects: { openai: false } })
    try {
      const openai = client(configured)
      const alloy = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'pcm' })
      expect((await bytes(alloy)).equals(await oneShot('Hello there.', 'Richard'))).toBe(true)
      const robot = await openai.audio.speech.create({ model: 'my-tts', voice: 'robot', input: 'Hello there.', response_format: 'pcm' })
      expect((await bytes(robot)).equals(await oneShot('Hello there.', 'Kal', 'svc_pro_v1.0'))).toBe(true)
      const gone = await fetch(`${off.base}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' })
      expect(gone.status).toBe(404)
      expect(((await gone.json()) as { error_code: string }).error_code).toBe('ROUTE_NOT_FOUND')
    } finally {
      await Promise.all([configured.close(), off.close()])
    }
  })

  it('GET /v1/models is the fallback of its path: a route of another dialect that claims a request (xi-api-key) serves it, OpenAI\'s every other', async () => {
    // Stands in for the ElevenLabs dialect's route, which claims requests carrying xi-api-key.
    const claiming: Route = {
      method: 'GET',
      path: '/v1/models',
      scope: 'text_to_speech',
      versionRequired: false,
      concurrent: false,
      dialect: { name: 'other', key: (headers) => headers['xi-api-key'] as string | undefined, errorBody: (error) => ({ detail: error.message }) },
      claims: (headers) => headers['xi-api-key'] !== undefined,
      handle: async () => ({ status: 200, json: [{ model_id: 'other' }] }),
    }
    const server = await start('standalone', { engine, keys: TEST_KEYS, routes: [claiming] })
    try {
      expect(await (await fetch(`${server.base}/v1/models`, { headers: { 'xi-api-key': KEY } })).json()).toEqual([{ model_id: 'other' }])
      const openai = await fetch(`${server.base}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } })
      expect(((await openai.json()) as { object: string }).object).toBe('list')
      const refused = await fetch(`${server.base}/v1/models`)
      expect(refused.status).toBe(401)
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } })
    } finally {
      await server.close()
    }
  })
})
