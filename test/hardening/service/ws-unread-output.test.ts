// Issue 20, case 4: a client that sends invalid frames and never reads the error replies grew the
// server by 128-166 MiB in 20 s, and its connection was never closed. First as it was found, on
// `svc-tts serve` in a child process for each framework, whose resident memory is read from /proc
// while a flooder that never reads floods it; then the unread-output bound on its own, in process,
// with the message bounds lifted so that only it can end the connection.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TtsError } from '../../../lib/errors.js'
import { testEngine } from '../../helpers/engine.js'
import { startFlood } from '../../helpers/flood.js'
import { serveListening, type Listening } from '../../helpers/served.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient } from '../../helpers/server.js'

const FLOOD_KEY = 'sk_test_hardening_unread_key_0123456789ab'
const PATH = '/text_to_speech/websocket/ws'
/** How much the server may grow while a client that never reads floods it for 3 s (it grew 20-40 MiB before the bounds; 2-5 MiB with them). */
const RSS_GROWTH_BOUND_MIB = 16

describe.each(ADAPTERS)('a client that never reads, on %s', (framework) => {
  let server: Listening
  beforeAll(async () => {
    server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-unread-')), framework, { env: { SVC_TTS_API_KEYS: FLOOD_KEY } })
  })
  afterAll(async () => {
    expect(await server.stop(15_000)).toBe(0)
  }, 20_000)

  it(`keeps the server within ${RSS_GROWTH_BOUND_MIB} MiB of growth and closes its connections`, async () => {
    const url = `${server.url.replace('http', 'ws')}${PATH}?api_key=${FLOOD_KEY}&version=v1`
    // What the first socket costs (code compiled, buffers grown) is paid before the baseline.
    const warm = await WsClient.connect(url)
    for (let i = 0; i < 50; i++) warm.socket.send('{}')
    await warm.until(() => warm.events.length === 50)
    warm.socket.close()
    await warm.closed
    await sleep(200)
    const before = server.rssMiB()
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, server.rssMiB())), 50)
    const flood = startFlood({ url, ms: 3000, frame: '{"hello":"there"}', paused: true })
    const summary = await flood.done
    await sleep(500)
    clearInterval(sampler)
    peak = Math.max(peak, server.rssMiB())

    expect(summary.sent).toBeGreaterThan(1000)
    // Every connection it opened was ended by the server (it reads nothing, so it sees the cut, 1006, not the close frame).
    expect(Object.values(summary.closes).reduce((a, b) => a + b, 0)).toBe(summary.connections - summary.leftOpen)
    expect(summary.connections - summary.leftOpen).toBeGreaterThan(0)
    expect(peak - before, `resident ${before.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`).toBeLessThan(RSS_GROWTH_BOUND_MIB)
    expect((await fetch(`${server.url}/`, { headers: { version: 'v1' } })).status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  })
})

const engine = await testEngine()

describe.each(ADAPTERS)('the unread-output bound on %s', (adapter) => {
  it('closes a socket whose unread output passes maxUnreadBytes, with UNREAD_OUTPUT_EXCEEDED, and answers it no more', async () => {
    const lifted = { messagesPerSecond: 1e9, messageBurst: 1e9, keyMessagesPerSecond: 1e9, keyMessageBurst: 1e9, maxQueuedMessages: 1e9, maxQueuedBytes: 1e9 }
    const server = await start(adapter, { engine, keys: TEST_KEYS, sendBufferBytes: 16 * 1024, realtime: { ...lifted, maxUnreadBytes: 64 * 1024 } })
    const ended: (string | undefined)[] = []
    const openRealtime = server.service.openRealtime.bind(server.service)
    server.service.openRealtime = (principal, writable) => {
      const connection = openRealtime(principal, writable)
      connection.once('close', (error?: TtsError) => ended.push(error?.code))
      return connection
    }
    try {
      const client = await WsClient.connect(`${server.ws}${PATH}?api_key=${KEY}&version=v1`)
      const tcp = (client.socket as unknown as { _socket: Socket })._socket
      tcp.pause()
      // Each frame is answered with an error the client does not read: the kernel's buffers fill, then the server's.
      const started = performance.now()
      while (!tcp.destroyed && ended.length === 0 && performance.now() - started < 10_000) {
        for (let i = 0; i < 1000; i++) client.socket.send('{}')
        await sleep(1)
      }
      expect(ended).toEqual(['UNREAD_OUTPUT_EXCEEDED'])
      // It is cut off once the grace for the close ends, since it never reads the close either.
      expect(await Promise.race([client.closed.then(() => 'closed'), (async () => {
        tcp.resume()
        await sleep(5000)
        return 'still open'
      })()])).toBe('closed')
    } finally {
      await server.close(0)
    }
  })
})
