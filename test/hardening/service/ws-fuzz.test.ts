// Issue 20, the acceptance fuzz of the WebSocket: 5000 seeded frames (every message kind with
// random fields in random orders, unknown fields, wrong types, not JSON, binary, invalid UTF-8,
// empty, deeply nested, huge; test/hardening/fuzz/ws-frames.ts) against `svc-tts serve` in a child
// process for each framework. After each batch a probe (a cancel of a context that never exists)
// must be answered, or the connection closed, within PROBE_MS: every frame before it was handled.
// Every error event carries a documented code below 500, every close a documented code, the server
// never exits, and it answers GET / afterwards. WS_FUZZ_SEED and WS_FUZZ_COUNT change the run.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { ERROR_STATUS, type ErrorCode } from '../../../lib/errors.js'
import { frameCost, TokenBucket } from '../../../lib/realtime/intake.js'
import { wsFrame, type FuzzFrame } from '../fuzz/ws-frames.js'
import { random } from '../../helpers/random.js'
import { serveListening } from '../../helpers/served.js'
import { ADAPTERS } from '../../helpers/server.js'
import { openOrRefused } from '../../helpers/ws-open.js'

const SEED = Number(process.env.WS_FUZZ_SEED ?? 20261126)
const COUNT = Number(process.env.WS_FUZZ_COUNT ?? 5000)
/** Clients at once, each with a key of its own. */
const CLIENTS = 10
const PROBE_MS = 10_000
/** The largest frame the server reads (its maxBodyBytes, 1 MiB by default). */
const FRAME_LIMIT = 1024 * 1024
const KEYS = Array.from({ length: CLIENTS }, (_, i) => `sk_test_hardening_ws_fuzz_${i}_0123456789abcdef`)
const PATH = '/text_to_speech/websocket/ws'
/** Closes the server may end a connection with: as asked; the frame limit and invalid UTF-8 (ws); the bounds. */
const CLOSES = /^(1000 closed|1007 .*|1009 .*|1008 (MESSAGE_RATE_EXCEEDED|MESSAGE_QUEUE_FULL|UNREAD_OUTPUT_EXCEEDED))$/

interface Findings {
  /** Error events whose code is not a documented client error. */
  badErrors: string[]
  /** Closes with a code or reason not documented. */
  badCloses: string[]
  /** Frames after which neither the probe's answer nor a close came in time. */
  hangs: string[]
  frames: number
  connections: number
  /** audioOutput events with audio in them: the fuzz reached synthesis. */
  audio: number
  errors: Record<string, number>
  closes: Record<string, number>
}

/** One client: opens a connection (again whenever it is closed) and sends its frames in random batches, each followed by a probe. */
async function client(url: string, frames: FuzzFrame[], seed: number, findings: Findings): Promise<void> {
  const next = random(seed)
  // Paced like a well-behaved client, so that the fuzz explores messages rather than the rate bound (ws-flood.test.ts covers that).
  const pace = new TokenBucket(180, 360)
  let probe = 0
  let sent = 0
  while (sent < frames.length) {
    const { socket, opened } = await openOrRefused(url)
    if (!opened) {
      socket.terminate()
      await sleep(1000)  // a handshake refused while the key cools down: Retry-After is 1 s
      continue
    }
    findings.connections++
    let closed: string | undefined
    let leaving = false
    const answered = new Set<string>()
    socket.on('message', (data, isBinary) => {
      if (isBinary) return void findings.badErrors.push('a binary frame from the server')
      const event = JSON.parse(String(data)) as { error_code?: string; context_id?: string; audio?: string }
      if (event.audio) findings.audio++
      if (event.error_code === undefined) return
      findings.errors[event.error_code] = (findings.errors[event.error_code] ?? 0) + 1
      const status = ERROR_STATUS[event.error_code as ErrorCode] as number | undefined
      if (status === undefined || status >= 500) findings.badErrors.push(JSON.stringify(event).slice(0, 300))
      if (event.context_id?.startsWith('probe-')) answered.add(event.context_id)
    })
    const closing = new Promise<void>((resolve) => socket.once('close', (code, reason) => {
      closed = `${code} ${String(reason)}`
      if (!leaving) {
        findings.closes[closed] = (findings.closes[closed] ?? 0) + 1
        if (!CLOSES.test(closed)) findings.badCloses.push(closed)
      }
      resolve()
    }))
    while (sent < frames.length && closed === undefined) {
      const batch = frames.slice(sent, sent + 1 + Math.floor(next() * 20))
      for (const frame of batch) {
        const bytes = typeof frame.data === 'string' ? Buffer.byteLength(frame.data) : frame.data.length
        // A frame past the frame limit never reaches the bounds: ws closes the connection first (1009).
        while (bytes <= FRAME_LIMIT && !pace.take(frameCost(bytes))) await sleep(5)
        if (closed !== undefined || socket.readyState !== WebSocket.OPEN) break
        socket.send(frame.data, { binary: frame.binary === true })
        sent++
        findings.frames++
      }
      if (closed !== undefined || socket.readyState !== WebSocket.OPEN) break
      const id = `probe-${probe++}`
      socket.send(JSON.stringify({ context_id: id, cancel: true }))
      const deadline = performance.now() + PROBE_MS
      while (!answered.has(id) && closed === undefined && performance.now() < deadline) await sleep(2)
      if (!answered.has(id) && closed === undefined) {
        findings.hangs.push(`no answer to ${id} within ${PROBE_MS} ms after frames ${sent - batch.length}..${sent - 1} (${batch.map((f) => f.what).join(', ')})`)
        socket.terminate()
      }
    }
    // Its frames are all sent: it leaves (a close of its own, which says nothing of the server).
    leaving = true
    if (socket.readyState === WebSocket.OPEN) socket.close()
    await Promise.race([closing, sleep(5000)])
  }
}

describe.each(ADAPTERS)('the WebSocket fuzz on %s', (framework) => {
  it(`${COUNT} seeded frames (seed ${SEED}): no crash, no hang, only documented errors and closes`, async () => {
    const server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-ws-fuzz-')), framework, { env: { SVC_TTS_API_KEYS: KEYS.join(',') } })
    try {
      const seed = SEED + ADAPTERS.indexOf(framework)
      const frames = Array.from({ length: COUNT }, (_, i) => wsFrame(seed, i))
      const findings: Findings = { badErrors: [], badCloses: [], hangs: [], frames: 0, connections: 0, audio: 0, errors: {}, closes: {} }
      const share = Math.ceil(COUNT / CLIENTS)
      await Promise.all(KEYS.map((key, i) =>
        client(`${server.url.replace('http', 'ws')}${PATH}?api_key=${key}&version=v1`, frames.slice(i * share, (i + 1) * share), seed * 31 + i, findings)))

      expect(findings.hangs).toEqual([])
      expect(findings.badErrors).toEqual([])
      expect(findings.badCloses).toEqual([])
      expect(findings.frames).toBe(COUNT)
      expect(findings.audio).toBeGreaterThan(0)
      expect(server.child.exitCode).toBeNull()
      const status = await fetch(`${server.url}/`, { headers: { version: 'v1' }, signal: AbortSignal.timeout(5000) })
      expect(await status.json()).toEqual({ status: 'ok', version: 'v1' })
    } finally {
      expect(await server.stop(15_000)).toBe(0)
    }
  }, 60_000)
})
