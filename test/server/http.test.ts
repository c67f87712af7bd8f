import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PREDEFINED_VOICES } from '../../lib/index.js'
import type { Route } from '../../lib/server/routes.js'
import { decodeWav, rms, s16 } from '../helpers/audio.js'
import { mp3CloneForm } from '../helpers/samples.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, openStream, TEST_KEYS, VOICES_ONLY_KEY, type Running } from '../helpers/server.js'
import { waitUntil } from '../helpers/wait.js'

const engine = await testEngine()
const kal = (transcript: string, extra: Record<string, unknown> = {}) => ({ model_id: 'svc_pro_v1.0', transcript, voice: { mode: 'id', id: voiceId('Kal') }, ...extra })
const flash = (transcript: string, extra: Record<string, unknown> = {}) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, ...extra })
const LONG = Array.from({ length: 250 }, () => 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background.').join(' ')

// A route mounted beside the SPEC's, as the voice management operations are; this one fails with a plain Error.
const brokenRoute: Route = {
  method: 'GET',
  path: '/voices/:voice_id/broken',
  scope: 'voices',
  versionRequired: false,
  concurrent: false,
  handle: async ({ params }) => {
    throw new Error(`secret internal detail at /srv/db for ${params.voice_id}`)
  },
}
const echoRoute: Route = {
  method: 'GET',
  path: '/voices/:voice_id/echo',
  scope: 'voices',
  versionRequired: false,
  concurrent: false,
  handle: async ({ params }) => ({ status: 200, json: { voice_id: params.voice_id } }),
}

describe.each(ADAPTERS)('HTTP on %s', (adapter) => {
  let server: Running
  const logs: { status: number; request_id: string }[] = []
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, maxBodyBytes: 64 * 1024, routes: [brokenRoute, echoRoute], log: (entry) => logs.push(entry) })
  })
  afterAll(() => server.close())

  it('GET / reports the status and version without a key', async () => {
    const response = await fetch(`${server.base}/`, { headers: { version: 'v1' } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok', version: 'v1' })
    const unknown = await fetch(`${server.base}/`, { headers: { version: 'v9' } })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error_code).toBe('VERSION_NOT_FOUND')
    const missing = await fetch(`${server.base}/`)
    expect(missing.status).toBe(400)
    expect((await missing.json()).error_code).toBe('INVALID_REQUEST')
  })

  it('POST /text_to_speech returns one WAV file by default, and raw PCM on request', async () => {
    const response = await post(server.base, '/text_to_speech', flash('Hello there, how are you?'))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('audio/wav')
    expect(response.headers.get('x-request-id')).toMatch(/\S+/)
    const wav = decodeWav(Buffer.from(await response.arrayBuffer()))
    expect(wav.sampleRate).toBe(44100)
    expect(wav.data.length / 2 / 44100).toBeGreaterThan(0.8)
    expect(rms(s16(wav.data))).toBeGreaterThan(300)
    const raw = await post(server.base, '/text_to_speech', flash('Hello.', { output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 16000 } }))
    expect(raw.headers.get('content-type')).toBe('application/octet-stream')
    const bytes = Buffer.from(await raw.arrayBuffer())
    expect(bytes.length % 4).toBe(0)
    expect(bytes.length / 4 / 16000).toBeGreaterThan(0.2)
    expect(logs.some((l) => l.status === 200 && l.request_id === response.headers.get('x-request-id'))).toBe(true)
  })

  it('POST /text_to_speech/streaming sends bytes that decode to the one-shot PCM (kal16)', async () => {
    const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
    const streamed = await post(server.base, '/text_to_speech/streaming', kal(text))
    expect(streamed.status).toBe(200)
    expect(streamed.headers.get('content-type')).toBe('application/octet-stream')
    const pcm = Buffer.from(await streamed.arrayBuffer())
    const oneShot = decodeWav(Buffer.from(await (await post(server.base, '/text_to_speech', kal(text))).arrayBuffer())).data
    expect(pcm.length).toBeGreaterThan(32000)
    expect(pcm.equals(oneShot)).toBe(true)

    const wavStream = await post(server.base, '/text_to_speech/streaming', kal(text, { output_format: { container: 'wav' } }))
    expect(wavStream.headers.get('content-type')).toBe('audio/wav')
    const file = Buffer.from(await wavStream.arrayBuffer())
    const wav = decodeWav(file)
    expect(wav.dataSize).toBe(0xffffffff)  // a streamed WAV keeps the unknown-length header
    expect(wav.data.equals(oneShot)).toBe(true)
  })

  it('POST /text_to_speech/streaming of a long transcript: an error found before the first audio is its status, one found after it cuts the stream', async () => {
    const badStart = await post(server.base, '/text_to_speech/streaming', flash("Wait <break time='soon'/> here. " + LONG))
    expect([badStart.status, (await badStart.json()).error_code]).toEqual([400, 'INVALID_MARKUP'])
    const silent = await post(server.base, '/text_to_speech/streaming', flash('... !? — '.repeat(100)))
    expect([silent.status, (await silent.json()).error_code]).toEqual([400, 'NO_SPEECH'])
    // The first sentence streams before the tag at the end is read: the status is sent, the connection is cut.
    const badEnd = await post(server.base, '/text_to_speech/streaming', flash(`${LONG} <break time='soon'/>`))
    expect(badEnd.status).toBe(200)
    await expect(badEnd.arrayBuffer()).rejects.toThrow()
    const oneShot = await post(server.base, '/text_to_speech', flash(`${LONG} <break time='soon'/>`))
    expect([oneShot.status, (await oneShot.json()).error_code]).toEqual([400, 'INVALID_MARKUP'])
  })

  it('POST /text_to_speech/with_timestamps returns audio and parallel word times inside it', async () => {
    const response = await post(server.base, '/text_to_speech/with_timestamps', flash('One two three four.'))
    expect(response.status).toBe(200)
    const body = (await response.json()) as { audio_base64: string; alignment: { words: string[]; word_start_times_milliseconds: number[]; word_end_times_milliseconds: number[] } }
    const durationMs = (Buffer.from(body.audio_base64, 'base64').length / 2 / 44100) * 1000
    expect(body.alignment.words).toEqual(['One', 'two', 'three', 'four.'].map((w) => expect.stringContaining(w.replace('.', ''))))
    expect(body.alignment.word_start_times_milliseconds.length).toBe(4)
    for (let i = 0; i < 4; i++) {
      expect(body.alignment.word_start_times_milliseconds[i]!).toBeLessThan(body.alignment.word_end_times_milliseconds[i]!)
      expect(body.alignment.word_end_times_milliseconds[i]!).toBeLessThanOrEqual(durationMs + 1)
    }
  })

  it('POST /voices lists voices a page at a time with next_cursor', async () => {
    const first = await post(server.base, '/voices', { limit: 3 })
    expect(first.status).toBe(200)
    const page = (await first.json()) as { voices: { voice_id: string }[]; next_cursor: string }
    expect(page.voices.map((v) => v.voice_id)).toEqual(PREDEFINED_VOICES.slice(0, 3).map((v) => v.record.voice_id))
    expect(page.next_cursor).toBe(page.voices[2]!.voice_id)
    const second = (await (await post(server.base, '/voices', { limit: 3, cursor: page.next_cursor })).json()) as { voices: { voice_id: string }[] }
    expect(second.voices[0]!.voice_id).toBe(PREDEFINED_VOICES[3]!.record.voice_id)
  })

  it('mounts the voice operations: clone (multipart), get, preview, delete, each needing the voices scope', async () => {
    const form = mp3CloneForm('Served')
    const cloned = await fetch(`${server.base}/voices/clone`, { method: 'POST', headers: { 'x-api-key': VOICES_ONLY_KEY }, body: form })
    expect(cloned.status).toBe(200)
    const voice = (await cloned.json()) as { voice_id: string; voice_type: string; name: string }
    expect(voice).toMatchObject({ voice_type: 'CUSTOM', name: 'Served' })
    const headers = { 'x-api-key': VOICES_ONLY_KEY }
    expect(await (await fetch(`${server.base}/voices/${voice.voice_id}`, { headers })).json()).toMatchObject({ voice_id: voice.voice_id })
    const preview = await fetch(`${server.base}/voices/${voice.voice_id}/preview`, { headers })
    expect(preview.headers.get('content-type')).toBe('audio/wav')
    expect(decodeWav(Buffer.from(await preview.arrayBuffer())).data.length).toBeGreaterThan(10_000)
    expect((await post(server.base, '/text_to_speech', flash('Spoken by a clone.', { voice: { mode: 'id', id: voice.voice_id } }))).status).toBe(200)
    expect((await fetch(`${server.base}/voices/${voice.voice_id}`, { method: 'DELETE', headers })).status).toBe(204)
    const gone = await fetch(`${server.base}/voices/${voice.voice_id}`, { headers })
    expect([gone.status, (await gone.json()).error_code]).toEqual([404, 'VOICE_NOT_FOUND'])
    expect((await fetch(`${server.base}/voices/${voice.voice_id}`, { headers: { 'x-api-key': 'sk_nope' } })).status).toBe(401)
    const tooLarge = await fetch(`${server.base}/voices/batch`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ voice_ids: ['x'.repeat(70 * 1024)] }) })
    expect(tooLarge.status).toBe(413)
  })

  it('refuses a missing, wrong or under-scoped key with 401 INVALID_API_KEY', async () => {
    for (const headers of [{ 'x-api-key': '' }, { 'x-api-key': 'sk_wrong' }, { 'x-api-key': VOICES_ONLY_KEY }]) {
      const response = await post(server.base, '/text_to_speech', flash('Hi.'), headers)
      expect(response.status).toBe(401)
      expect((await response.json()).error_code).toBe('INVALID_API_KEY')
    }
    expect((await post(server.base, '/voices', { limit: 1 }, { 'x-api-key': VOICES_ONLY_KEY })).status).toBe(200)
    expect((await post(server.base, '/voices', { limit: 1 }, { 'x-api-key': 'sk_nope' })).status).toBe(401)
  })

  it('answers an unknown version with 404 VERSION_NOT_FOUND on every versioned operation', async () => {
    for (const [path, body] of [['/text_to_speech', flash('Hi.')], ['/text_to_speech/streaming', flash('Hi.')], ['/text_to_speech/with_timestamps', flash('Hi.')], ['/voices', { limit: 1 }]] as const) {
      const response = await post(server.base, path, body, { version: 'v2' })
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ error_code: 'VERSION_NOT_FOUND' })
    }
  })

  it('maps request errors to their codes, with the zod issue path for validation', async () => {
    const missing = await post(server.base, '/text_to_speech/with_timestamps', { model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } })
    expect(missing.status).toBe(400)
    const body = await missing.json()
    expect(body.error_code).toBe('INVALID_REQUEST')
    expect(body.extra.issues[0].path).toEqual(['transcript'])
    const cases: [unknown, number, string][] = [
      ['{"model_id": ', 400, 'INVALID_REQUEST'],
      [flash('Hi.', { voice: { mode: 'id', id: '00000000-0000-0000-0000-000000000000' } }), 404, 'VOICE_NOT_FOUND'],
      [flash('Hi.', { language: 'xx' }), 400, 'INVALID_LANGUAGE'],
      [flash('Hi.', { output_format: { encoding: 'mp5' } }), 400, 'FORMAT_NOT_RECOGNIZED'],
      [flash('Hi.', { model_id: 'svc_nope' }), 400, 'MODEL_NOT_FOUND'],
      [flash('x'.repeat(70 * 1024)), 413, 'PAYLOAD_TOO_LARGE'],
    ]
    for (const [request, status, code] of cases) {
      const response = await post(server.base, '/text_to_speech/with_timestamps', request)
      expect([response.status, (await response.json()).error_code]).toEqual([status, code])
    }
    // Under Express, paths the router does not own are the app's to answer.
    if (adapter !== 'express') {
      const notFound = await fetch(`${server.base}/nowhere`, { method: 'POST' })
      expect(notFound.status).toBe(404)
      expect((await notFound.json()).error_code).toBe('ROUTE_NOT_FOUND')
    }
  })

  it('mounts extra routes with path parameters, and a failing one is a 500 that leaks nothing', async () => {
    const echo = await fetch(`${server.base}/voices/abc-123/echo`, { headers: { 'x-api-key': KEY } })
    expect(await echo.json()).toEqual({ voice_id: 'abc-123' })
    const broken = await fetch(`${server.base}/voices/abc/broken`, { headers: { 'x-api-key': KEY } })
    expect(broken.status).toBe(500)
    const text = await broken.text()
    expect(JSON.parse(text)).toEqual({ error_code: 'INTERNAL_ERROR', message: 'internal server error' })
    expect(text).not.toContain('secret')
  })

  it('cancels the native synthesis when the client disconnects mid-stream', async () => {
    const stream = openStream(server.base, flash(LONG))
    await stream.received(200_000)
    expect(server.service.requestsInFlight).toBe(1)
    stream.disconnect()
    // The request's stream is cancelled (not merely stalled by backpressure) and no native task runs for it.
    expect(await waitUntil(() => server.service.requestsInFlight === 0 && engine.counters().activeTasks === 0, 2000)).toBe(true)
  })
})

describe('Fastify plugin options', () => {
  it('are validated at registration', async () => {
    const { default: Fastify } = await import('fastify')
    const { default: ttsPlugin } = await import('../../lib/server/fastify.js')
    const app = Fastify()
    await expect(app.register(ttsPlugin, { engine, maxBodyBytes: -1 } as never)).rejects.toThrow()
    const missing = Fastify()
    await expect(missing.register(ttsPlugin, {} as never)).rejects.toThrow()
  })
})

describe.each(ADAPTERS)('limits on %s', (adapter) => {
  it('answers each limit with 429, its code and Retry-After', async () => {
    const concurrent = await start(adapter, { engine, keys: TEST_KEYS, limits: { concurrentRequests: 1 } })
    try {
      const holding = openStream(concurrent.base, flash(LONG))
      await holding.received(1)
      const refused = await post(concurrent.base, '/text_to_speech', flash('Hi.'))
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toBe('1')
      expect((await refused.json()).error_code).toBe('TOO_MANY_CONCURRENT_REQUESTS')
      holding.disconnect()
      expect(await waitUntil(() => concurrent.service.requestsInFlight === 0)).toBe(true)
      expect((await post(concurrent.base, '/text_to_speech', flash('Hi.'))).status).toBe(200)  // the slot came back
    } finally {
      await concurrent.close()
    }

    const rate = await start(adapter, { engine, keys: TEST_KEYS, limits: { requestsPerWindow: 2, windowSeconds: 30 } })
    try {
      expect((await post(rate.base, '/voices', { limit: 1 })).status).toBe(200)
      expect((await post(rate.base, '/voices', { limit: 1 })).status).toBe(200)
      const refused = await post(rate.base, '/voices', { limit: 1 })
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(29)
      expect((await refused.json()).error_code).toBe('RATE_LIMIT_EXCEEDED')
    } finally {
      await rate.close()
    }

    const usage = await start(adapter, { engine, keys: TEST_KEYS, limits: { charactersPerPeriod: 20, periodSeconds: 3600 } })
    try {
      expect((await post(usage.base, '/text_to_speech', flash('Twelve chars'))).status).toBe(200)
      const refused = await post(usage.base, '/text_to_speech', flash('Twelve chars'))
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500)
      expect((await refused.json()).error_code).toBe('USAGE_LIMIT_EXCEEDED')
    } finally {
      await usage.close()
    }
  })
})

describe.each(ADAPTERS)('graceful shutdown on %s', (adapter) => {
  it('lets a stream in flight finish, then refuses new connections', async () => {
    const server = await start(adapter, { engine, keys: TEST_KEYS })
    const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well.'
    const expected = decodeWav(Buffer.from(await (await post(server.base, '/text_to_speech', kal(text))).arrayBuffer())).data
    const response = await post(server.base, '/text_to_speech/streaming', kal(text))
    const reader = response.body!.getReader()
    const parts: Buffer[] = [Buffer.from((await reader.read()).value!)]
    const closing = server.close(10_000)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      parts.push(Buffer.from(value))
    }
    await closing
    expect(Buffer.concat(parts).equals(expected)).toBe(true)
    await expect(fetch(`${server.base}/`, { headers: { version: 'v1' } })).rejects.toThrow()
  })
})
