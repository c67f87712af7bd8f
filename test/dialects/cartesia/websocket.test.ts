// The Cartesia dialect's WebSocket, driven by the official SDK's websocket client against the real
// server. The SDK always dials `wss:`; ws's `createConnection` option (which the SDK passes
// through) opens a plain TCP socket instead, so the handshake and every frame are the SDK's own.
// The SDK's ESM build finds `ws` with a bare require(), which ESM lacks (it then wants the global
// WebSocket Node 20 lacks): its CommonJS build is loaded, as a CommonJS application would.
import { createRequire } from 'node:module'
import net from 'node:net'
import type CartesiaClient from '@cartesia/cartesia-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PARSE_CHANNEL } from '../../../lib/index.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient, type Running } from '../../helpers/server.js'

const { Cartesia, CartesiaError } = createRequire(import.meta.url)('@cartesia/cartesia-js') as { Cartesia: typeof CartesiaClient; CartesiaError: typeof Error }
type TTSWS = Awaited<ReturnType<CartesiaClient['tts']['websocket']>>
const engine = await testEngine()
const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } as const
const SPEECH = { model_id: 'sonic-3', voice: { mode: 'id', id: voiceId('Sarah') }, output_format: RAW, language: 'en' } as const
type Event = Record<string, any>  // eslint-disable-line @typescript-eslint/no-explicit-any

/** The SDK's websocket client on a plain TCP socket to the server, recording every event it receives. */
async function sdkSocket(server: Running): Promise<{ ws: TTSWS; events: Event[]; errors: unknown[] }> {
  const { port } = new URL(server.base)
  const cartesia = new Cartesia({ apiKey: KEY, baseURL: server.base })
  const ws = await cartesia.tts.websocket({ createConnection: () => net.connect(Number(port), '127.0.0.1') })
  const events: Event[] = []
  const errors: unknown[] = []
  ws.on('event', (event) => events.push(event))
  ws.on('error', (error) => errors.push(error))
  return { ws, events, errors }
}

async function received(context: { receive(): AsyncGenerator<unknown> }): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of context.receive()) events.push(event as Event)
  return events
}

const pcmOf = (events: Event[]) => Buffer.concat(events.filter((e) => e.type === 'chunk').map((e) => Buffer.from(e.data as string, 'base64')))

async function oneShot(server: Running, transcript: string): Promise<Buffer> {
  const cartesia = new Cartesia({ apiKey: KEY, baseURL: server.base, maxRetries: 0 })
  return Buffer.from(await (await cartesia.tts.generate({ ...SPEECH, transcript } as never)).arrayBuffer())
}

async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe.each(ADAPTERS)('the Cartesia SDK\'s websocket on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('two contexts with continuations on one socket each speak the same PCM as their text in one request', async () => {
    const { ws } = await sdkSocket(server)
    try {
      const first = ws.context({ ...SPEECH, contextId: 'first' })
      const second = ws.context({ ...SPEECH, voice: { mode: 'id', id: voiceId('Kal') } as never, model_id: 'sonic-english', contextId: 'second' })
      const firstEvents = received(first)
      const secondEvents = received(second)
      await first.push({ transcript: 'Hello there. ' })
      await second.push({ transcript: 'A second voice speaks ' })
      await first.push({ transcript: 'This continues the first context.' })
      await second.push({ transcript: 'on the same socket.' })
      await first.no_more_inputs()
      await second.no_more_inputs()
      const [a, b] = await Promise.all([firstEvents, secondEvents])
      expect(a.at(-1)).toEqual({ type: 'done', done: true, status_code: 200, context_id: 'first' })
      expect(b.at(-1)).toEqual({ type: 'done', done: true, status_code: 200, context_id: 'second' })
      expect(pcmOf(a)).toEqual(await oneShot(server, 'Hello there. This continues the first context.'))
      const kal = new Cartesia({ apiKey: KEY, baseURL: server.base, maxRetries: 0 })
      const kalBytes = Buffer.from(await (await kal.tts.generate({ ...SPEECH, model_id: 'sonic-english', voice: { mode: 'id', id: voiceId('Kal') }, transcript: 'A second voice speaks on the same socket.' } as never)).arrayBuffer())
      expect(pcmOf(b)).toEqual(kalBytes)
    } finally {
      ws.close()
    }
  })

  it('cancel stops a context: its done acknowledges it and nothing of it follows', async () => {
    const { ws, events } = await sdkSocket(server)
    try {
      const long = ws.context({ ...SPEECH, contextId: 'long' })
      await long.push({ transcript: 'The birch canoe slid on the smooth planks. '.repeat(40) })
      await until(() => events.some((e) => e.context_id === 'long' && e.type === 'chunk'))
      await ws.cancelContext('long')
      await until(() => events.some((e) => e.context_id === 'long' && e.type === 'done'))
      const acknowledged = events.filter((e) => e.context_id === 'long').length
      // Another context speaks to its end on the same socket meanwhile: the cancelled one stays silent.
      const after = ws.context({ ...SPEECH, contextId: 'after' })
      const afterEvents = received(after)
      await after.push({ transcript: 'Still here.' })
      await after.no_more_inputs()
      expect(pcmOf(await afterEvents).length).toBeGreaterThan(16000)
      const ofLong = events.filter((e) => e.context_id === 'long')
      expect(ofLong.length).toBe(acknowledged)
      expect(ofLong.at(-1)).toMatchObject({ type: 'done', done: true })
      expect(pcmOf(ofLong).length).toBeLessThan(40 * 2 * 16000)
    } finally {
      ws.close()
    }
  })
})

describe('the Cartesia SDK\'s websocket (standalone)', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('timestamps come with their context\'s audio, in order, inside it', async () => {
    const { ws } = await sdkSocket(server)
    try {
      const context = ws.context({ ...SPEECH, add_timestamps: true, contextId: 'words' })
      const events = received(context)
      await context.push({ transcript: 'One two three. ' })
      await context.push({ transcript: 'Four five six.' })
      await context.no_more_inputs()
      let seconds = 0
      const words: { word: string; start: number; end: number }[] = []
      for (const event of await events) {
        if (event.type === 'chunk') seconds += Buffer.from(event.data as string, 'base64').length / 32000
        if (event.type !== 'timestamps') continue
        const { words: w, start: s, end: e } = event.word_timestamps as { words: string[]; start: number[]; end: number[] }
        for (const [i, word] of w.entries()) {
          expect(e[i]!).toBeLessThanOrEqual(seconds + 1e-6)
          words.push({ word, start: s[i]!, end: e[i]! })
        }
      }
      expect(words.map((w) => w.word.replace(/\W/g, '').toLowerCase())).toEqual(['one', 'two', 'three', 'four', 'five', 'six'])
      for (const [i, word] of words.entries()) if (i > 0) expect(word.start).toBeGreaterThanOrEqual(words[i - 1]!.end - 1e-6)
    } finally {
      ws.close()
    }
  })

  it('a flush forces synthesis and is answered with flush_done once its audio is out, while the context goes on', async () => {
    const { ws } = await sdkSocket(server)
    try {
      const context = ws.context({ ...SPEECH, contextId: 'flushed' })
      const all: Event[] = []
      const reading = (async () => {
        for await (const event of context.receive()) all.push(event as Event)
      })()
      await context.push({ transcript: 'An unfinished clause', flush: true })
      // Answered before any more text is sent: the context is still open, its flushed audio all out.
      await until(() => all.some((e) => e.type === 'flush_done'))
      expect(all.filter((e) => e.type === 'flush_done')).toEqual([{ type: 'flush_done', done: false, flush_done: true, flush_id: 1, status_code: 200, context_id: 'flushed' }])
      expect(all.some((e) => e.type === 'done')).toBe(false)
      const flushedAudio = pcmOf(all)
      expect(flushedAudio.length).toBeGreaterThan(16000 * 2 * 0.5)
      await context.push({ transcript: ' and its end.' })
      await context.no_more_inputs()
      await reading
      expect(all[all.length - 1]!.type).toBe('done')
      expect(pcmOf(all).length).toBeGreaterThan(flushedAudio.length)
    } finally {
      ws.close()
    }
  })

  it('a refused context is the SDK\'s error; a context with another output_format is refused; the socket serves on', async () => {
    const { ws, errors } = await sdkSocket(server)
    try {
      const unknown = ws.context({ ...SPEECH, voice: { mode: 'id', id: 'no-such-voice' } as never, contextId: 'unknown' })
      const refused = received(unknown).catch((error: unknown) => error)
      await unknown.push({ transcript: 'Hello.' })
      await unknown.no_more_inputs()
      const error = await refused
      expect(error).toBeInstanceOf(CartesiaError)
      expect((error as Error).message).toMatch(/no-such-voice/)
      // Each of its two messages (the text, then its end) asked for the unknown voice, and each is refused alike.
      expect(errors).toHaveLength(2)
      for (const refusal of errors) expect((refusal as { error: Event }).error).toMatchObject({ type: 'error', status_code: 404, context_id: 'unknown', error_code: 'voice_not_found', done: true })

      const ok = ws.context({ ...SPEECH, contextId: 'ok' })
      const okEvents = received(ok)
      await ok.push({ transcript: 'Fine.' })
      await ok.no_more_inputs()
      expect(pcmOf(await okEvents).length).toBeGreaterThan(8000)

      const other = ws.context({ ...SPEECH, output_format: { ...RAW, sample_rate: 24000 }, contextId: 'other' })
      const otherRefused = received(other).catch((e: unknown) => e)
      await other.push({ transcript: 'Hello.' })
      expect(((await otherRefused) as Error).message).toMatch(/output_format/)
    } finally {
      ws.close()
    }
  })

  it('browsers\' query parameters carry the key and version; a bad key is a 401 in Cartesia\'s shape', async () => {
    const client = await WsClient.connect(`${server.ws}/tts/websocket?api_key=${KEY}&cartesia_version=2024-06-10`)
    try {
      client.send({ ...SPEECH, context_id: 'q', transcript: 'Hi.', continue: false })
      await client.until(() => client.of('q').some((e) => e.type === 'done'))
      expect(client.of('q').filter((e) => e.type === 'chunk').length).toBeGreaterThan(0)
    } finally {
      client.socket.close()
    }
    const refused = await WsClient.connect(`${server.ws}/tts/websocket?api_key=sk_wrong`).catch((error: { status: number; body: unknown }) => error)
    expect(refused).toMatchObject({ status: 401, body: { status_code: 401, title: 'Unauthorized', error_code: 'invalid_api_key' } })
  })

  it('a context is parsed in Cartesia\'s shape, then as the SPEC\'s messages, once each', async () => {
    const client = await WsClient.connect(`${server.ws}/tts/websocket`, { headers: { 'x-api-key': KEY, 'cartesia-version': '2025-04-16' } })
    const parses: string[] = []
    const onParse = (message: unknown) => parses.push((message as { what: string }).what)
    PARSE_CHANNEL.subscribe(onParse)
    try {
      client.send({ ...SPEECH, context_id: 'p', transcript: 'Hello. ', continue: true })
      client.send({ ...SPEECH, context_id: 'p', transcript: 'Again.', continue: false })
      await client.until(() => client.of('p').some((e) => e.type === 'done'))
    } finally {
      PARSE_CHANNEL.unsubscribe(onParse)
      client.socket.close()
    }
    expect(parses).toEqual([
      'Cartesia WebSocket message', 'initializeConnection message', 'text message',
      'Cartesia WebSocket message', 'text message', 'closeContext message',
    ])
  })
})
