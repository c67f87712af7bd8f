// The Cartesia dialect over HTTP, driven by the official SDK (@cartesia/cartesia-js 4.x) against the
// real server: bytes in each container decoded to a plausible length, SSE equal to bytes, word
// timestamps inside the audio, the voice routes on the SPEC's shared path, and refusals as the
// SDK's error classes with their statuses.
import Cartesia, { AuthenticationError, BadRequestError, NotFoundError } from '@cartesia/cartesia-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PARSE_CHANNEL } from '../../../lib/index.js'
import { decodeWav } from '../../helpers/audio.js'
import { ffmpegDecode } from '../../helpers/decode.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const SENTENCE = 'Hello there, this is a test of the Cartesia dialect.'
const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } as const
const request = (extra: Record<string, unknown> = {}) => ({ model_id: 'sonic-3', transcript: SENTENCE, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: RAW, language: 'en', ...extra })

const client = (server: Running, apiKey = KEY) => new Cartesia({ apiKey, baseURL: server.base, maxRetries: 0 })

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer())
}

/** The SSE stream's events, in order. */
async function sseEvents(cartesia: Cartesia, body: Record<string, unknown>): Promise<Record<string, any>[]> {  // eslint-disable-line @typescript-eslint/no-explicit-any
  const events = []
  for await (const event of await cartesia.tts.generateSSE(body as never)) events.push(event as unknown as Record<string, unknown>)
  return events
}

/** The SDK's rejection of a call, for its class and status. */
async function refusal(call: Promise<unknown>): Promise<{ status?: number; error?: unknown } & Error> {
  try {
    await call
  } catch (error) {
    return error as Error
  }
  throw new Error('the call succeeded')
}

// A speaker says this sentence in 2.5 to 5 seconds; svc-tts's voices fall in that range with a margin.
function plausible(seconds: number): void {
  expect(seconds).toBeGreaterThan(1.5)
  expect(seconds).toBeLessThan(8)
}

describe.each(ADAPTERS)('the Cartesia SDK over HTTP on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('POST /tts/bytes gives raw PCM, a WAV file and an MP3 of the sentence', async () => {
    const cartesia = client(server)
    const raw = await bytesOf(await cartesia.tts.generate(request() as never))
    plausible(raw.length / 2 / 16000)

    const wavFile = await bytesOf(await cartesia.tts.generate(request({ output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 22050 } }) as never))
    expect(decodeWav(wavFile).sampleRate).toBe(22050)
    const wav = ffmpegDecode(wavFile, 'wav')
    expect(wav.sampleRate).toBe(22050)
    plausible(wav.samples.length / 22050)

    const mp3File = await bytesOf(await cartesia.tts.generate(request({ output_format: { container: 'mp3', sample_rate: 24000, bit_rate: 64000 } }) as never))
    const mp3 = ffmpegDecode(mp3File, 'mp3')
    expect(mp3.codec).toBe('mp3')
    expect(mp3.errors).toBe('')
    plausible(mp3.samples.length / mp3.sampleRate)
  })

  it('POST /tts/sse streams chunks that join into the same PCM as /tts/bytes, then done', async () => {
    const cartesia = client(server)
    const bytes = await bytesOf(await cartesia.tts.generate(request() as never))
    const events = await sseEvents(cartesia, { ...request(), context_id: 'sse-1' })
    const chunks = events.filter((e) => e.type === 'chunk')
    expect(chunks.length).toBeGreaterThan(0)
    expect(chunks.every((c) => c.done === false && c.status_code === 206 && c.context_id === 'sse-1' && typeof c.step_time === 'number')).toBe(true)
    expect(Buffer.concat(chunks.map((c) => Buffer.from(c.data as string, 'base64')))).toEqual(bytes)
    expect(events.at(-1)).toEqual({ type: 'done', done: true, status_code: 200, context_id: 'sse-1' })
  })

  it('GET /voices/:id answers Cartesia\'s voice to the SDK and the SPEC\'s record to a SPEC client', async () => {
    const voice = await client(server).voices.get(voiceId('Kal'))
    expect(voice).toMatchObject({ id: voiceId('Kal'), name: 'Kal', language: 'en', gender: 'masculine', is_owner: false, access: 'public' })
    const spec = await fetch(`${server.base}/voices/${voiceId('Kal')}`, { headers: { 'x-api-key': KEY } })
    expect(await spec.json()).toMatchObject({ voice_id: voiceId('Kal'), voice_type: 'PREDEFINED' })
  })

  it('a bad key, an unknown voice and a bad format are the SDK\'s errors with their statuses', async () => {
    const bad = await refusal(client(server, 'sk_wrong').tts.generate(request() as never))
    expect(bad).toBeInstanceOf(AuthenticationError)
    expect(bad.status).toBe(401)
    expect(bad.error).toMatchObject({ status_code: 401, title: 'Unauthorized', error_code: 'invalid_api_key' })

    const voice = await refusal(client(server).tts.generate(request({ voice: { mode: 'id', id: 'no-such-voice' } }) as never))
    expect(voice).toBeInstanceOf(NotFoundError)
    expect(voice.status).toBe(404)
    expect(voice.message).toMatch(/no-such-voice/)

    const format = await refusal(client(server).tts.generate(request({ output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 11025 } }) as never))
    expect(format).toBeInstanceOf(BadRequestError)
    expect(format.status).toBe(400)
    expect(format.error).toMatchObject({ error_code: 'format_not_recognized', title: 'Invalid output format' })
    expect(format.message).toMatch(/sample_rate/)
  })
})

describe('the Cartesia SDK over HTTP (standalone)', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS, dialects: { cartesia: { models: { 'house-english': 'svc_pro_v1.0' } } } })
  })
  afterAll(() => server.close())

  it('SSE timestamps come after their audio, in order, inside it', async () => {
    const events = await sseEvents(client(server), { ...request(), add_timestamps: true, context_id: 'words' })
    let audioSeconds = 0
    const words: { word: string; start: number; end: number }[] = []
    for (const event of events) {
      if (event.type === 'chunk') audioSeconds += Buffer.from(event.data as string, 'base64').length / 2 / 16000
      if (event.type !== 'timestamps') continue
      const { words: w, start: s, end: e } = event.word_timestamps as { words: string[]; start: number[]; end: number[] }
      for (const [i, word] of w.entries()) {
        words.push({ word, start: s[i]!, end: e[i]! })
        expect(e[i]!).toBeLessThanOrEqual(audioSeconds + 1e-6)
      }
    }
    expect(words.map((w) => w.word.replace(/[^a-z]/gi, '').toLowerCase())).toEqual(['hello', 'there', 'this', 'is', 'a', 'test', 'of', 'the', 'cartesia', 'dialect'])
    for (const [i, word] of words.entries()) {
      expect(word.start).toBeLessThanOrEqual(word.end)
      if (i > 0) expect(word.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-6)
    }
    expect(words.at(-1)!.end).toBeGreaterThan(audioSeconds / 2)
  })

  it('the voice list pages as the 4.x SDK reads it, and is an array for older versions', async () => {
    const ids: string[] = []
    for await (const voice of client(server).voices.list({ limit: 7 })) ids.push(voice.id)
    const all = await engine.voices.list({ limit: 100 })
    expect(ids).toEqual(all.voices.map((v) => v.voice_id))
    expect(ids.length).toBeGreaterThan(7)

    const old = await fetch(`${server.base}/voices?limit=3`, { headers: { 'x-api-key': KEY, 'cartesia-version': '2024-06-10' } })
    const array = (await old.json()) as { id: string }[]
    expect(array.map((v) => v.id)).toEqual(ids.slice(0, 3))
    const women = await fetch(`${server.base}/voices?gender=feminine&limit=100`, { headers: { 'x-api-key': KEY, 'cartesia-version': '2026-08-14' } })
    const page = (await women.json()) as { data: { gender: string }[]; has_more: boolean }
    expect(page.data.length).toBeGreaterThan(0)
    expect(page.data.every((v) => v.gender === 'feminine')).toBe(true)
  })

  it('Cartesia\'s model ids, dated snapshots, the configured table and svc-tts ids all speak; an unknown sonic model is a 400 naming those served', async () => {
    const cartesia = client(server)
    const pcm = async (model_id: string) => bytesOf(await cartesia.tts.generate(request({ model_id }) as never))
    expect(await pcm('sonic-3-2025-10-27')).toEqual(await pcm('svc_flash_v1.0'))
    expect(await pcm('sonic-english')).toEqual(await pcm('svc_pro_v1.0'))
    expect(await pcm('house-english')).toEqual(await pcm('svc_pro_v1.0'))
    expect(await pcm('sonic-turbo')).toEqual(await pcm('svc_flash_v1.5'))
    const unknown = await refusal(cartesia.tts.generate(request({ model_id: 'sonic-9' }) as never))
    expect(unknown).toBeInstanceOf(BadRequestError)
    expect(unknown.message).toMatch(/sonic-english/)
  })

  it('speed maps to the engine\'s rate; what the engine cannot do is a 400 naming it', async () => {
    const cartesia = client(server)
    const normal = await bytesOf(await cartesia.tts.generate(request() as never))
    const fast = await bytesOf(await cartesia.tts.generate(request({ generation_config: { speed: 1.5 } }) as never))
    expect(fast.length).toBeLessThan(normal.length * 0.8)
    for (const [extra, named] of [
      [{ generation_config: { volume: 1.5 } }, /volume/],
      [{ generation_config: { emotion: 'angry' } }, /emotion/],
      [{ voice: { mode: 'embedding', embedding: [0.1] } }, /embedding/],
      [{ voice: { mode: 'id', id: voiceId('Sarah'), __experimental_controls: { speed: 'fast' } } }, /generation_config/],
      [{ output_format: { container: 'ogg', sample_rate: 24000 } }, /container/],
      [{ output_format: { container: 'mp3', encoding: 'pcm_mulaw', sample_rate: 24000, bit_rate: 64000 } }, /encoding/],
      [{ generation_config: { speed: 3 } }, /speed/],
      [{ transcript: 'Hello <shout>there</shout>.' }, /shout|markup|tag/i],
      [{ add_phoneme_timestamps: true }, /phoneme/],
    ] as const) {
      const error = await refusal(cartesia.tts.generate(request(extra) as never))
      expect(error, JSON.stringify(extra)).toBeInstanceOf(BadRequestError)
      expect(error.message).toMatch(named)
    }
  })

  it('a transcript\'s <break> tag passes through as svc-tts markup', async () => {
    const cartesia = client(server)
    const plain = await bytesOf(await cartesia.tts.generate(request({ transcript: 'Hello. There.' }) as never))
    const paused = await bytesOf(await cartesia.tts.generate(request({ transcript: 'Hello. <break time="1s"/> There.' }) as never))
    expect(paused.length - plain.length).toBeGreaterThan(0.8 * 32000)
  })

  it('a request is parsed once in Cartesia\'s shape and once by the engine\'s gate', async () => {
    const parses: string[] = []
    const onParse = (message: unknown) => parses.push((message as { what: string }).what)
    PARSE_CHANNEL.subscribe(onParse)
    try {
      await bytesOf(await client(server).tts.generate(request() as never))
    } finally {
      PARSE_CHANNEL.unsubscribe(onParse)
    }
    expect(parses).toEqual(['Cartesia generation request', 'synthesis request'])
  })

  it('the dialect can be switched off', async () => {
    const off = await start('standalone', { engine, keys: TEST_KEYS, dialects: { cartesia: false } })
    try {
      const error = await refusal(client(off).tts.generate(request() as never))
      expect(error).toBeInstanceOf(NotFoundError)
    } finally {
      await off.close()
    }
  })
})
