// Issue 20's fuzz: 5000 seeded HTTP requests against `svc-tts serve` on each framework (a child
// process, so a crash is an exit): every request is answered or its connection closed within a
// deadline, no answer is a 500 without a code of ours, and the server still answers afterwards.
import { mkdtempSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveListening, type Listening } from '../../helpers/served.js'
import { ADAPTERS } from '../../helpers/server.js'
import { fuzzRequest } from './http-fuzz.js'

const KEY = 'sk_test_hardening_fuzz_0123456789abcdef'
const SEED = Number(process.env.SVC_TTS_FUZZ_SEED ?? 20261126)
const REQUESTS = 5000
const AT_ONCE = 16
const DEADLINE_MS = 15_000

interface Answer {
  index: number
  status: number | undefined
  body: string
}

/** Sends one request's bytes and reads until the server closes (every request asks it to). */
function send(port: number, index: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const parts: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`request ${index} of seed ${SEED} had no answer and no close within ${DEADLINE_MS} ms`))
    }, DEADLINE_MS)
    socket.on('data', (part: Buffer) => parts.push(part))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(parts).toString('latin1')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]
      resolve({ index, status: status === undefined ? undefined : Number(status), body: text.slice(text.indexOf('\r\n\r\n') + 4, text.indexOf('\r\n\r\n') + 2000) })
    })
    socket.end(fuzzRequest(SEED, index, KEY))
  })
}

describe.each(ADAPTERS)(`HTTP fuzz on %s (seed ${SEED})`, (framework) => {
  let server: Listening
  beforeAll(async () => {
    server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-fuzz-')), framework, { env: { SVC_TTS_API_KEYS: KEY } })
  })
  afterAll(async () => {
    // Every client is gone by now, so nothing is left for the shutdown to wait on: a request the
    // server still counts as live would hold it to its 10 s deadline, and fail this.
    expect(await server.stop(5000), server.stderr()).toBe(0)
  })

  it(`${REQUESTS} requests: each answered or closed, never a 500 without our code, no crash`, async () => {
    const answers: Answer[] = []
    let nextIndex = 0
    await Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (nextIndex < REQUESTS) answers.push(await send(server.port, nextIndex++))
    }))
    expect(answers).toHaveLength(REQUESTS)
    const faults = answers.filter((a) => a.status !== undefined && a.status >= 500 && !/"error_code":"(?!INTERNAL_ERROR)[A-Z_]+"/.test(a.body))
    expect(faults.map((a) => `#${a.index} ${a.status} ${a.body.slice(0, 200)}`)).toEqual([])
    // Most requests get an answer; the rest are ones the HTTP parser itself refused and closed.
    expect(answers.filter((a) => a.status !== undefined).length).toBeGreaterThan(REQUESTS * 0.9)
    expect(server.child.exitCode).toBeNull()
    expect((await fetch(`${server.url}/`, { headers: { version: 'v1' } })).status).toBe(200)
  }, 180_000)
})
