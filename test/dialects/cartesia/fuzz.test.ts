// The Cartesia dialect under seeded random input (fuzz-inputs.ts): every HTTP refusal is Cartesia's
// error body with its status and never a 5xx, on each adapter; every WebSocket message answered is
// one of Cartesia's server messages, every error below 500, every close a documented one; after
// each batch of frames a probe is answered in time (every frame before it was handled); the server
// serves on. CARTESIA_FUZZ_SEED changes the run.
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'
import { fuzzQuery, fuzzText, VOICE } from './fuzz-inputs.js'

const SEED = Number(process.env.CARTESIA_FUZZ_SEED ?? 20261126)
const HTTP_COUNT = 600
const WS_FRAMES = 1000
const PROBE_MS = 10_000
const engine = await testEngine()
const HEADERS = { 'x-api-key': KEY, 'cartesia-version': '2025-04-16' }
const SERVER_MESSAGES = new Set(['chunk', 'timestamps', 'flush_done', 'done', 'error'])
/** As asked; ws's frame limit and invalid UTF-8; the realtime bounds. */
const CLOSES = /^(1000 closed|1005 |1007 .*|1009 .*|1008 (MESSAGE_RATE_EXCEEDED|MESSAGE_QUEUE_FULL|UNREAD_OUTPUT_EXCEEDED))$/

/** What is wrong with a refusal's body, if anything. */
function badRefusal(status: number, body: unknown): string | undefined {
  const error = body as Record<string, unknown> | undefined
  if (status >= 500) return `status ${status}`
  if (error?.status_code !== status || typeof error.title !== 'string' || typeof error.message !== 'string' || typeof error.error_code !== 'string' || typeof error.request_id !== 'string') {
    return `not Cartesia's error body: ${JSON.stringify(body).slice(0, 200)}`
  }
  return undefined
}

/** A request's status, and what is wrong with its answer, if anything. */
async function httpCase(server: Running, index: number): Promise<{ status: number; bad?: string }> {
  const roll = index % 4
  const init: RequestInit = { headers: { ...HEADERS, 'content-type': 'application/json' }, signal: AbortSignal.timeout(20_000) }
  const target = roll === 0 ? `/voices?${fuzzQuery(SEED, index)}`
    : roll === 1 ? `/voices/${encodeURIComponent(fuzzText(SEED, index).text.slice(0, 100).replace(/[\ud800-\udfff]/g, '?'))}`
    : roll === 2 ? '/tts/bytes' : '/tts/sse'
  const response = await fetch(`${server.base}${target}`, roll < 2 ? init : { ...init, method: 'POST', body: fuzzText(SEED, index).text })
  const bytes = Buffer.from(await response.arrayBuffer())
  if (response.status === 200) return { status: 200 }
  let body: unknown
  try {
    body = JSON.parse(bytes.toString('utf8'))
  } catch {
    body = bytes.toString('utf8')
  }
  const bad = badRefusal(response.status, body)
  return { status: response.status, ...(bad && { bad: `${target} ${roll >= 2 ? fuzzText(SEED, index).what : ''}: ${bad}` }) }
}

describe.each(ADAPTERS)('the Cartesia dialect\'s HTTP fuzz on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it(`${HTTP_COUNT} seeded requests (seed ${SEED}): a Cartesia-shaped refusal every time, never a 5xx`, async () => {
    const findings: string[] = []
    const statuses: Record<number, number> = {}
    for (let index = 0; index < HTTP_COUNT; index += 4) {
      for (const { status, bad } of await Promise.all([0, 1, 2, 3].map((i) => httpCase(server, index + i)))) {
        statuses[status] = (statuses[status] ?? 0) + 1
        if (bad) findings.push(bad)
      }
    }
    expect(findings).toEqual([])
    // The fuzz reached synthesis and the refusals alike.
    expect(statuses[200]).toBeGreaterThan(0)
    expect(statuses[400]).toBeGreaterThan(0)
    const health = await fetch(`${server.base}/voices/${VOICE}`, { headers: HEADERS })
    expect(health.status).toBe(200)
  }, 120_000)
})

describe('the Cartesia dialect\'s WebSocket fuzz', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it(`${WS_FRAMES} seeded frames (seed ${SEED}): only Cartesia's messages, errors below 500, documented closes, no hang`, async () => {
    const findings: string[] = []
    const closes: string[] = []
    let audio = 0
    let sent = 0
    let probe = 0
    while (sent < WS_FRAMES) {
      const socket = new WebSocket(`${server.ws}/tts/websocket`, { headers: HEADERS })
      socket.on('error', () => {})
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      let closed: string | undefined
      const answered = new Set<string>()
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>
        if (!SERVER_MESSAGES.has(message.type as string)) findings.push(`unknown message ${String(data).slice(0, 200)}`)
        if (message.type === 'chunk') audio++
        if (message.type !== 'error') return
        if (typeof message.status_code !== 'number' || message.status_code >= 500 || typeof message.message !== 'string') findings.push(`bad error ${String(data).slice(0, 300)}`)
        if (typeof message.context_id === 'string' && message.context_id.startsWith('probe-')) answered.add(message.context_id)
      })
      const closing = new Promise<void>((resolve) => socket.once('close', (code, reason) => {
        closed = `${code} ${String(reason)}`
        resolve()
      }))
      while (sent < WS_FRAMES && closed === undefined) {
        for (let i = 0; i < 10 && sent < WS_FRAMES; i++) {
          const { text } = fuzzText(SEED, sent++)
          if (socket.readyState === WebSocket.OPEN) socket.send(text)
        }
        // A message every client's parse refuses, naming its context: answered once every frame before it was handled.
        const id = `probe-${probe++}`
        if (socket.readyState !== WebSocket.OPEN) break
        socket.send(JSON.stringify({ context_id: id, transcript: 5 }))
        const deadline = performance.now() + PROBE_MS
        while (!answered.has(id) && closed === undefined && performance.now() < deadline) await sleep(2)
        if (!answered.has(id) && closed === undefined) findings.push(`no answer to ${id} within ${PROBE_MS} ms`)
      }
      if (closed !== undefined) closes.push(closed)
      else socket.close()
      await Promise.race([closing, sleep(5000)])
    }
    expect(findings).toEqual([])
    expect(closes.filter((close) => !CLOSES.test(close))).toEqual([])
    expect(audio).toBeGreaterThan(0)
    // The server serves on: a request after the fuzz is spoken.
    const after = await fetch(`${server.base}/tts/bytes`, {
      method: 'POST',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ model_id: 'sonic-3', transcript: 'Still here.', voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } }),
    })
    expect(after.status).toBe(200)
    expect((await after.arrayBuffer()).byteLength).toBeGreaterThan(8000)
  }, 120_000)
})
