import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, VOICES_ONLY_KEY, WsClient, type Running } from '../helpers/server.js'
import { waitUntil } from '../helpers/wait.js'

const engine = await testEngine()
const PATH = '/text_to_speech/websocket/ws'
const init = { model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } } as const
const SENTENCE = 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background. '
const long = (sentences: number) => SENTENCE.repeat(sentences)
const seconds = (pcm: Buffer) => pcm.length / 2 / 44100

function url(server: Running, query = `api_key=${KEY}&version=v1`): string {
  return `${server.ws}${PATH}?${query}`
}

async function connect(server: Running, extra: Record<string, unknown> = {}): Promise<WsClient> {
  const client = await WsClient.connect(url(server))
  client.send({ ...init, ...extra })
  return client
}

/** Events of a context that end it: the last audioOutput (final) and finalOutput. */
const finals = (client: WsClient, id: string) => client.of(id).filter((e) => e.final === true).length

describe.each(ADAPTERS)('WebSocket on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, realtime: { maxContexts: 60 } })
  })
  afterAll(() => server.close())

  it('refuses a bad handshake with the HTTP status and the JSON error body', async () => {
    const cases: [string, number, string][] = [
      [`api_key=sk_wrong&version=v1`, 401, 'INVALID_API_KEY'],
      [`version=v1`, 401, 'INVALID_API_KEY'],
      [`api_key=${VOICES_ONLY_KEY}&version=v1`, 401, 'INVALID_API_KEY'],
      [`api_key=${KEY}&version=v7`, 404, 'VERSION_NOT_FOUND'],
      [`api_key=${KEY}`, 400, 'INVALID_REQUEST'],
    ]
    for (const [query, status, code] of cases) {
      const refusal = await WsClient.connect(url(server, query)).then(
        () => undefined,
        (error: { status?: number; body?: { error_code?: string } }) => error,
      )
      expect([refusal?.status, refusal?.body?.error_code]).toEqual([status, code])
    }
    // The key and version are accepted as handshake headers too.
    const viaHeaders = await WsClient.connect(`${server.ws}${PATH}`, { headers: { api_key: KEY, version: 'v1' } })
    viaHeaders.socket.close()
  })

  it('speaks the default context: audioOutput chunks, the last with final true, then finalOutput', async () => {
    const client = await connect(server)
    client.send({ transcript: 'Hello there, how are you today? ' })
    client.send({ transcript: 'I am fine. ' })
    client.send({ context_id: 'default', close_context: true, transcript: '' })
    await client.until(() => finals(client, 'default') === 2)
    const events = client.of('default')
    const last = events.at(-1)!
    expect(last).toEqual({ context_id: 'default', audio: '', final: true })
    expect(events.slice(0, -2).every((e) => e.final === false)).toBe(true)
    expect(seconds(client.audio('default'))).toBeGreaterThan(1.5)
    client.socket.close()
  })

  it('reports protocol errors as error events and stays usable', async () => {
    const client = await WsClient.connect(url(server))
    client.socket.send('{not json')
    client.send({ transcript: 'Too early. ' })
    client.send({ ...init, voice: { mode: 'id', id: 'nope' } })
    client.send({ hello: 1 })
    await client.until(() => client.events.length === 4)
    expect(client.events.map((e) => e.error_code)).toEqual(['INVALID_MESSAGE', 'INVALID_MESSAGE', 'VOICE_NOT_FOUND', 'INVALID_MESSAGE'])
    client.send(init)
    client.send({ context_id: 'ghost', close_context: true, transcript: '' })
    client.send({ context_id: 'c1', transcript: 'Still here. ' })
    client.send({ context_id: 'c1', close_context: true, transcript: 'not empty' })
    client.send({ context_id: 'c1', close_context: true, transcript: '' })
    await client.until(() => finals(client, 'c1') === 2)
    expect(client.events.find((e) => e.context_id === 'ghost')).toMatchObject({ error_code: 'CONTEXT_NOT_FOUND' })
    expect(client.events.filter((e) => e.error_code === 'INVALID_REQUEST').length).toBe(1)
    expect(seconds(client.audio('c1'))).toBeGreaterThan(0.4)
    client.socket.close()
  })

  it('runs 2 contexts with interleaved sendText, force and close', async () => {
    const client = await connect(server)
    client.send({ context_id: 'a', transcript: 'First context speaks ' })
    client.send({ context_id: 'b', transcript: 'Second context ' })
    client.send({ context_id: 'a', transcript: 'a little more, ' })
    client.send({ context_id: 'b', transcript: 'is forced now', force: true })
    await client.until(() => client.of('b').length > 0)
    client.send({ context_id: 'b', transcript: ' and then closes. ' })
    client.send({ context_id: 'a', transcript: 'and ends here. ' })
    client.send({ context_id: 'b', close_context: true, transcript: '' })
    client.send({ context_id: 'a', close_context: true, transcript: '' })
    await client.until(() => finals(client, 'a') === 2 && finals(client, 'b') === 2)
    expect(seconds(client.audio('a'))).toBeGreaterThan(1.5)
    expect(seconds(client.audio('b'))).toBeGreaterThan(1.5)
    client.socket.close()
  })

  it('runs 50 concurrent contexts on one socket', async () => {
    const client = await connect(server)
    const ids = Array.from({ length: 50 }, (_, i) => `ctx-${i}`)
    for (const id of ids) client.send({ context_id: id, transcript: `Context ${id.slice(4)} starts, ` })
    for (const id of ids) client.send({ context_id: id, transcript: 'and finishes. ' })
    for (const id of ids) client.send({ context_id: id, close_context: true, transcript: '' })
    await client.until(() => ids.every((id) => finals(client, id) === 2), 60_000)
    for (const id of ids) expect(seconds(client.audio(id))).toBeGreaterThan(0.8)
    expect(client.events.some((e) => e.error_code)).toBe(false)
    client.socket.close()
  })

  it('refuses a context over the per-connection limit, and takes one again once a context ends', async () => {
    const limited = await start(adapter, { engine, keys: TEST_KEYS, realtime: { maxContexts: 2 } })
    try {
      const client = await connect(limited)
      client.send({ context_id: 'one', transcript: 'One. ' })
      client.send({ context_id: 'two', transcript: 'Two. ' })
      client.send({ context_id: 'three', transcript: 'Three. ' })
      await client.until(() => client.events.some((e) => e.error_code))
      expect(client.events.find((e) => e.error_code)).toMatchObject({ error_code: 'CONTEXT_LIMIT_EXCEEDED', context_id: 'three' })
      client.send({ context_id: 'one', close_context: true, transcript: '' })
      await client.until(() => finals(client, 'one') === 2)
      client.send({ context_id: 'three', transcript: 'Three. ' })
      client.send({ context_id: 'three', close_context: true, transcript: '' })
      await client.until(() => finals(client, 'three') === 2)
      client.socket.close()
    } finally {
      await limited.close()
    }
  })

  it('takes text a word per message and speaks it in sentence-level chunks, gapless at real-time playback', async () => {
    const client = await connect(server)
    const words = (SENTENCE + 'It is easy to tell the depth of a well. These days a chicken leg is a rare dish. ').trim().split(' ')
    const arrivals: { at: number; seconds: number }[] = []
    const received: Buffer[] = []
    client.socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as { audio?: string }
      if (!event.audio) return
      received.push(Buffer.from(event.audio, 'base64'))
      arrivals.push({ at: performance.now(), seconds: seconds(received.at(-1)!) })
    })
    for (const word of words) {
      client.send({ context_id: 'llm', transcript: `${word} ` })
      await sleep(15)
    }
    client.send({ context_id: 'llm', close_context: true, transcript: '' })
    await client.until(() => finals(client, 'llm') === 2)
    // Played as it arrives: each chunk starts when it arrives or when the previous one ends, whichever is later.
    let clock = arrivals[0]!.at
    let worstGapMs = 0
    for (const { at, seconds: length } of arrivals) {
      worstGapMs = Math.max(worstGapMs, at - clock)
      clock = Math.max(clock, at) + length * 1000
    }
    // Sentence-level prosody, never a word per chunk: words spoken one by one would each end in a
    // sentence's pause and fall, so the audio would run far longer than the whole text in one request.
    const whole = await engine.synthesize({ ...init, transcript: words.map((word) => `${word} `).join(''), output_format: { container: 'raw' } })
    expect(Math.abs(Buffer.concat(received).length / whole.length - 1)).toBeLessThan(0.03)
    expect(worstGapMs).toBeLessThan(500)  // generous under shared load; the bench reports the real figure
    client.socket.close()
  })

  it('re-initialising a context mid-generation never sends audio of the old generation afterwards', async () => {
    const client = await connect(server, { add_timestamps: true })
    client.send({ context_id: 'r', transcript: long(30) })
    await client.until(() => client.of('r').length > 0)
    client.send({ context_id: 'r', transcript: 'Zebras quickly jumped. ', voice: { mode: 'id', id: voiceId('Richard') } })
    client.send({ context_id: 'r', close_context: true, transcript: '' })
    await client.until(() => finals(client, 'r') === 2)
    const events = client.of('r')
    const wordsOf = (e: Record<string, unknown>) => ((e.alignment as { words?: string[] } | undefined)?.words ?? []).join(' ')
    const firstNew = events.findIndex((e) => wordsOf(e).includes('Zebras'))
    expect(firstNew).toBeGreaterThan(0)
    for (const event of events.slice(firstNew)) expect(wordsOf(event)).not.toMatch(/birch|canoe|planks/)
    const timings = events[firstNew]!.alignment as { word_start_times_milliseconds: number[] }
    expect(timings.word_start_times_milliseconds[0]).toBeLessThan(500)  // times count from the new generation's start
    client.socket.close()
  })

  it('cancel stops a context at once: nothing of it after the acknowledgement, and its native work ends', async () => {
    const client = await connect(server)
    client.send({ context_id: 'x', transcript: long(40) })
    await client.until(() => client.of('x').length > 0)
    client.send({ context_id: 'x', cancel: true })
    await client.until(() => client.of('x').some((e) => e.cancelled === true))
    const acknowledged = client.of('x').length
    await sleep(300)
    expect(client.of('x').length).toBe(acknowledged)
    expect(client.of('x').at(-1)).toEqual({ context_id: 'x', audio: '', final: true, cancelled: true })
    expect(await waitUntil(() => server.service.realtimeContexts === 0 && engine.counters().activeTasks === 0)).toBe(true)
    client.socket.close()
  })

  for (const [form, message] of [['text', { text: '' }], ['terminate', { terminate: true }]] as const) {
    it(`closeConnection (${form} form) ends every context gracefully and closes the socket`, async () => {
      const client = await connect(server)
      client.send({ context_id: 'p', transcript: 'Pending text without a close, ' })
      client.send({ context_id: 'q', transcript: 'Another one. ' })
      client.send(message)
      const { code } = await client.closed
      expect(code).toBe(1000)
      expect(finals(client, 'p')).toBe(2)
      expect(finals(client, 'q')).toBe(2)
      expect(seconds(client.audio('p'))).toBeGreaterThan(1)
    })
  }

  it('a client that disconnects mid-stream cancels its contexts native work', async () => {
    const client = await connect(server)
    client.send({ context_id: 'd', transcript: long(60) })
    await client.until(() => client.of('d').length > 0)
    expect(server.service.realtimeContexts).toBe(1)
    client.socket.terminate()
    expect(await waitUntil(() => server.service.realtimeContexts === 0 && engine.counters().activeTasks === 0, 2000)).toBe(true)
  })

  it('a slow reader pauses synthesis of its context (bounded send buffer), which resumes when it reads', async () => {
    const slow = await start(adapter, { engine, keys: TEST_KEYS, sendBufferBytes: 64 * 1024 })
    try {
      const client = await connect(slow)
      const tcp = (client.socket as unknown as { _socket: import('node:net').Socket })._socket
      client.send({ context_id: 's', transcript: long(150) })
      client.send({ context_id: 's', close_context: true, transcript: '' })
      await client.until(() => client.of('s').length > 0)
      tcp.pause()
      // Paused: the context stays live, and no native task runs for it while the buffer is full.
      // Synthesis stops once the buffer is full, not at a lull while the rest of the text is planned.
      let busyAt = performance.now()
      const quiet = () => {
        if (engine.counters().activeTasks > 0) busyAt = performance.now()
        return performance.now() - busyAt > 1000
      }
      expect(await waitUntil(quiet, 10_000)).toBe(true)
      await sleep(300)
      expect(engine.counters().activeTasks).toBe(0)
      expect(slow.service.realtimeContexts).toBe(1)
      expect(finals(client, 's')).toBe(0)
      tcp.resume()
      await client.until(() => finals(client, 's') === 2, 60_000)
      expect(seconds(client.audio('s'))).toBeGreaterThan(150 * 4)
      client.socket.close()
    } finally {
      await slow.close()
    }
  })

  it('closes an idle connection with an IDLE_TIMEOUT error', async () => {
    const idle = await start(adapter, { engine, keys: TEST_KEYS, realtime: { idleTimeoutMs: 300 } })
    try {
      const client = await connect(idle)
      await client.closed
      expect(client.events.at(-1)).toMatchObject({ error_code: 'IDLE_TIMEOUT' })
    } finally {
      await idle.close()
    }
  })
})

describe.each(ADAPTERS)('WebSocket limits and shutdown on %s', (adapter) => {
  it('counts each live context against the key concurrency, text against usage, handshakes and contexts against the rate', async () => {
    // The rate counts the handshake, context one, context two (refused for concurrency) and the second handshake: the third is refused.
    const limited = await start(adapter, { engine, keys: TEST_KEYS, limits: { concurrentRequests: 1, charactersPerPeriod: 200, requestsPerWindow: 4 } })
    try {
      const client = await connect(limited)
      client.send({ context_id: 'one', transcript: 'First. ' })
      client.send({ context_id: 'two', transcript: 'Second. ' })
      await client.until(() => client.events.some((e) => e.error_code))
      expect(client.events.find((e) => e.error_code)).toMatchObject({ error_code: 'TOO_MANY_CONCURRENT_REQUESTS', extra: { retry_after_seconds: 1 } })
      client.send({ context_id: 'one', transcript: 'x'.repeat(300) })
      await client.until(() => client.events.some((e) => e.error_code === 'USAGE_LIMIT_EXCEEDED'))
      await WsClient.connect(url(limited)).then((c) => c.socket.close())
      const refusal = await WsClient.connect(url(limited)).then(
        () => undefined,
        (error: { status?: number; body?: { error_code?: string }; headers?: Record<string, string> }) => error,
      )
      expect([refusal?.status, refusal?.body?.error_code]).toEqual([429, 'RATE_LIMIT_EXCEEDED'])
      expect(Number(refusal?.headers?.['retry-after'])).toBeGreaterThan(0)
      client.socket.close()
    } finally {
      await limited.close()
    }
  })

  it('graceful shutdown lets a live context finish, then closes the socket', async () => {
    const server = await start(adapter, { engine, keys: TEST_KEYS })
    const client = await connect(server)
    client.send({ context_id: 'g', transcript: long(3) })
    await client.until(() => client.of('g').length > 0)
    await server.close(10_000)
    const { code } = await client.closed
    expect(code).toBe(1000)
    expect(finals(client, 'g')).toBe(2)
    expect(seconds(client.audio('g'))).toBeGreaterThan(3 * 4)
  })
})
