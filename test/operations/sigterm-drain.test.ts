import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { voiceId } from '../helpers/engine.js'
import { serveListening } from '../helpers/served.js'

const KEY = 'sk_test_drain_key_0123456789abcdef01234567'
const GRACE_S = 2
const DEADLINE_MS = 10_000
const short = { model_id: 'svc_flash_v1.5', transcript: 'The birch canoe slid on the smooth planks.', voice: { mode: 'id', id: voiceId('Sarah') } }
const long = { model_id: 'svc_pro_v1.0', transcript: 'Glue the sheet to the dark blue background. It is easy to tell the depth of a well. '.repeat(10), voice: { mode: 'id', id: voiceId('Kal') } }
const headers = { 'content-type': 'application/json', 'x-api-key': KEY }

describe('svc-tts serve on SIGTERM under steady load', () => {
  it('turns /readyz 503 at once, serves every request the balancer still sends during the grace, finishes the streams in flight, and exits within grace + deadline', async () => {
    const server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-drain-')), 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args: ['--drain-seconds', String(GRACE_S)] })
    const oneShot = async (body: unknown) => {
      const response = await fetch(`${server.url}/text_to_speech`, { method: 'POST', headers, body: JSON.stringify(body) })
      const bytes = Buffer.from(await response.arrayBuffer())
      return { status: response.status, bytes }
    }
    const expectedLong = decodeWav((await oneShot(long)).bytes).data

    // The balancer: polls /readyz every 100 ms, and stops routing here once it says 503.
    let routed = true
    let readyzTurned = 0
    const balancer = (async () => {
      while (routed) {
        const ready = await fetch(`${server.url}/readyz`).then((r) => r.status, () => 0)
        if (ready === 503) {
          readyzTurned = performance.now()
          routed = false
        }
        await sleep(100)
      }
    })()
    // 20 requests a second while routed here.
    const requests: Promise<{ status: number; bytes: Buffer }>[] = []
    const load = (async () => {
      while (routed) {
        requests.push(oneShot(short))
        await sleep(50)
      }
    })()
    await sleep(1000)

    // Streams in flight at the signal: each has its first audio.
    const streams = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const response = await fetch(`${server.url}/text_to_speech/streaming`, { method: 'POST', headers, body: JSON.stringify(long) })
        const reader = response.body!.getReader()
        const first = await reader.read()
        return { reader, parts: [Buffer.from(first.value!)] }
      }),
    )
    const signalled = performance.now()
    server.child.kill('SIGTERM')
    const exitedAt = server.exit.then((code) => ({ code, at: performance.now() }))

    await Promise.all([balancer, load])
    expect(readyzTurned - signalled).toBeLessThan(500)
    // Sent after /readyz turned 503, inside the grace: still served.
    await sleep(200)
    requests.push(oneShot(short), oneShot(short))

    const finished = await Promise.all(
      streams.map(async ({ reader, parts }) => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          parts.push(Buffer.from(value))
        }
        return Buffer.concat(parts)
      }),
    )
    for (const audio of finished) expect(audio.equals(expectedLong)).toBe(true)

    const results = await Promise.all(requests)
    expect(results.length).toBeGreaterThan(15)
    expect(results.filter((r) => r.status !== 200)).toEqual([])
    for (const { bytes } of results) expect(decodeWav(bytes).data.length).toBeGreaterThan(44100 * 2 * 0.5)

    const { code, at } = await exitedAt
    expect(code).toBe(0)
    const elapsed = at - signalled
    expect(elapsed).toBeGreaterThanOrEqual(GRACE_S * 1000 - 50)
    expect(elapsed).toBeLessThan(GRACE_S * 1000 + DEADLINE_MS)
    expect(server.lines.some((line) => line.includes('"shutting down"') && line.includes(`"drain_grace_ms":${GRACE_S * 1000}`))).toBe(true)
  }, 60_000)
})
