// Issue 20, case 7: with 1024 open files (a common default), 1100 keyless connections that send
// their headers a byte at a time left 0 of 88 legitimate requests served. Now headers must arrive
// within a deadline and, at the connection cap, a new connection evicts the oldest idle one.
import { mkdtempSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveListening, type Listening } from '../../helpers/served.js'
import { ADAPTERS } from '../../helpers/server.js'

const SLOW = 1100
const LEGITIMATE = 88

describe.each(ADAPTERS)('slow connections on %s', (framework) => {
  let server: Listening
  beforeAll(async () => {
    server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-slowloris-')), framework, {
      env: { SVC_TTS_API_KEYS: 'sk_test_slowloris_0123456789abcdefghij' },
      openFiles: 1024,
    })
  })
  afterAll(async () => {
    expect(await server.stop(), server.stderr()).toBe(0)
  })

  it(`${SLOW} connections trickling their headers leave every one of ${LEGITIMATE} whole requests served`, async () => {
    const slow: Socket[] = []
    const trickle = setInterval(() => {
      for (const socket of slow) if (!socket.destroyed) socket.write('x')
    }, 1000)
    try {
      for (let i = 0; i < SLOW; i++) {
        const socket = connect(server.port, '127.0.0.1')
        socket.on('error', () => {})
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ')
        slow.push(socket)
        if (i % 100 === 99) await sleep(20)
      }
      await sleep(1500)  // every slow connection is open (or refused) and trickling
      let served = 0
      const started = performance.now()
      for (let batch = 0; batch < LEGITIMATE; batch += 8) {
        const answers = await Promise.all(Array.from({ length: Math.min(8, LEGITIMATE - batch) }, async () => {
          const response = await fetch(`${server.url}/`, { headers: { version: 'v1' }, signal: AbortSignal.timeout(5000) })
          return response.status
        }))
        served += answers.filter((status) => status === 200).length
      }
      expect(served).toBe(LEGITIMATE)
      expect(performance.now() - started).toBeLessThan(20_000)
      expect(server.child.exitCode).toBeNull()
    } finally {
      clearInterval(trickle)
      for (const socket of slow) socket.destroy()
    }
  }, 60_000)

  it('a connection that never finishes its headers is closed after the headers deadline', async () => {
    const socket = connect(server.port, '127.0.0.1')
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())))
    socket.on('error', () => {})
    const opened = performance.now()
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n')
    const trickle = setInterval(() => socket.write('X-A: b\r\n'), 500)
    try {
      const at = await Promise.race([closed, sleep(20_000).then(() => Infinity)])
      expect(at - opened).toBeLessThan(15_000)
    } finally {
      clearInterval(trickle)
      socket.destroy()
    }
  }, 30_000)
})
