import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { voiceId } from '../helpers/engine.js'
import { startBalancer, type Balancer } from '../helpers/haproxy.js'
import { startPostgres, type PostgresServer } from '../helpers/postgres.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { mp3CloneForm } from '../helpers/samples.js'
import { serveListening, type Listening } from '../helpers/served.js'
import { freePort } from '../helpers/ports.js'

const root = path.resolve(import.meta.dirname, '../..')
/** Every key's limits on both replicas, counted in their one Redis. */
const CONCURRENT = 12  // above the 10 streams of the SIGKILL test
const CHARACTERS = 1_000_000
/** The budget key's own characters per period, kept with the key. */
const BUDGET = 20_000
const run = promisify(execFile)
const short = JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: 'The birch canoe slid on the smooth planks.', voice: { mode: 'id', id: voiceId('Sarah') } })
const long = JSON.stringify({ model_id: 'svc_pro_v1.0', transcript: 'Glue the sheet to the dark blue background. It is easy to tell the depth of a well. '.repeat(8), voice: { mode: 'id', id: voiceId('Kal') } })

interface Replica {
  name: 'a' | 'b'
  port: number
  dataDir: string
  process?: Listening
}

let postgres: PostgresServer
let redis: RedisServer
let balancer: Balancer
let key: string
let keyId: string
const replicas: Replica[] = []

async function startReplica(replica: Replica): Promise<void> {
  replica.process = await serveListening(replica.dataDir, 'standalone', {
    env: { SVC_TTS_DATABASE_URL: postgres.url, SVC_TTS_REDIS_URL: redis.url },
    args: ['--port', String(replica.port), '--drain-seconds', '1', '--limits', `concurrentRequests=${CONCURRENT},charactersPerPeriod=${CHARACTERS}`],
  })
}

/** One request through the balancer: its status, and the replica that served it. */
async function speak(body = short): Promise<{ status: number; replica: string | null; bytes: number }> {
  try {
    const response = await fetch(`${balancer.url}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body })
    const bytes = (await response.arrayBuffer()).byteLength
    return { status: response.status, replica: response.headers.get('x-svc-tts-replica'), bytes }
  } catch (error) {
    return { status: 0, replica: String(error), bytes: 0 }
  }
}

/** The key's requests and characters as `svc-tts keys usage` reads them from the shared database. */
async function usage(): Promise<{ requests: number; characters: number }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'usage', '--database-url', postgres.url], { cwd: root })
  const line = stdout.split('\n').find((entry) => entry.startsWith(`${keyId}  `)) ?? ''
  return { requests: Number(/requests=(\d+)/.exec(line)?.[1] ?? 0), characters: Number(/characters=(\d+)/.exec(line)?.[1] ?? 0) }
}

/** Until the balancer sends requests to `name` again (its health checks passed). */
async function untilServing(name: string): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await speak()).replica !== name) {
    if (Date.now() > deadline) throw new Error(`the balancer sent nothing to replica ${name}`)
    await sleep(100)
  }
}

beforeAll(async () => {
  postgres = await startPostgres()
  redis = await startRedis()
  const created = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'create', '--name', 'balanced', '--database-url', postgres.url], { cwd: root })
  key = created.stdout.trim()
  keyId = /created key (\S+)/.exec(created.stderr)![1]!
  for (const name of ['a', 'b'] as const) replicas.push({ name, port: await freePort(), dataDir: mkdtempSync(path.join(tmpdir(), `svc-tts-replica-${name}-`)) })
  await Promise.all(replicas.map(startReplica))
  balancer = await startBalancer(await freePort(), [`127.0.0.1:${replicas[0]!.port}`, `127.0.0.1:${replicas[1]!.port}`])
  await untilServing('a')
  await untilServing('b')
}, 90_000)

afterAll(async () => {
  await balancer?.stop()
  for (const replica of replicas) await replica.process?.stop(15_000)
  await postgres?.remove()
  await redis?.stop()
})

describe('svc-tts replicas behind haproxy (deploy/haproxy/svc-tts.cfg)', () => {
  it('hold a key to its limits across both replicas: N+1 simultaneous requests get exactly one 429, and a characters-per-period limit holds', async () => {
    const held = await Promise.all(
      Array.from({ length: CONCURRENT + 1 }, async () => {
        const response = await fetch(`${balancer.url}/text_to_speech/streaming`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: long })
        const reader = response.body!.getReader()
        if (response.status === 200) await reader.read()  // in flight, holding its slot
        return { status: response.status, replica: response.headers.get('x-svc-tts-replica'), reader }
      }),
    )
    expect(held.map((h) => h.status).sort()).toEqual([...Array(CONCURRENT).fill(200), 429])
    expect(new Set(held.filter((h) => h.status === 200).map((h) => h.replica))).toEqual(new Set(['a', 'b']))
    for (const { reader } of held) await reader.cancel()

    // A key with a budget of its own (kept with the key, in place of the replicas' --limits): 1000 characters a request, to each replica in turn.
    const other = (await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'create', '--name', 'budget', '--limits', `charactersPerPeriod=${BUDGET}`, '--database-url', postgres.url], { cwd: root })).stdout.trim()
    // Until both replicas heard of the key (a voice listing costs no characters).
    for (const replica of replicas) {
      const deadline = Date.now() + 5000
      while ((await fetch(`http://127.0.0.1:${replica.port}/voices?limit=1`, { headers: { 'x-api-key': other } })).status !== 200 && Date.now() < deadline) await sleep(20)
    }
    const transcript = 'The birch canoe slid on the smooth planks. '.repeat(24).slice(0, 1000)
    const statuses: string[] = []
    for (let i = 0; i < BUDGET / 1000 + 1; i++) {
      const replica = replicas[i % 2]!
      const response = await fetch(`http://127.0.0.1:${replica.port}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': other }, body: JSON.stringify({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') } }) })
      statuses.push(response.status === 200 ? '200' : `${response.status} ${((await response.json()) as { error_code: string }).error_code}`)
      if (response.status === 200) await response.arrayBuffer()
    }
    expect(statuses).toEqual([...Array(BUDGET / 1000).fill('200'), '429 USAGE_LIMIT_EXCEEDED'])
  }, 120_000)

  it('a rolling restart under a steady 20 requests a second loses no request', async () => {
    const results: Promise<{ status: number; replica: string | null; bytes: number }>[] = []
    let loading = true
    const load = (async () => {
      while (loading) {
        results.push(speak())
        await sleep(50)
      }
    })()
    await sleep(500)
    for (const replica of replicas) {
      expect(await replica.process!.stop(15_000)).toBe(0)
      await startReplica(replica)
      await untilServing(replica.name)
    }
    await sleep(500)
    loading = false
    await load
    const done = await Promise.all(results)
    expect(done.length).toBeGreaterThan(60)
    expect(done.filter((r) => r.status !== 200)).toEqual([])
    for (const r of done) expect(r.bytes).toBeGreaterThan(20_000)
    expect(new Set(done.map((r) => r.replica))).toEqual(new Set(['a', 'b']))
  }, 120_000)

  it('SIGKILL of a replica during 10 streams: its clients see an error or a cut, new requests go to the survivor, nothing acknowledged is lost, and it serves again after a restart', async () => {
    const form = mp3CloneForm('Survivor')
    const cloned = await fetch(`${balancer.url}/voices/clone`, { method: 'POST', headers: { 'x-api-key': key }, body: form })
    expect(cloned.status).toBe(200)
    const { voice_id } = (await cloned.json()) as { voice_id: string }
    const before = await usage()
    const whole = (await speak(long)).bytes

    const streams = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const response = await fetch(`${balancer.url}/text_to_speech/streaming`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: long })
        const reader = response.body!.getReader()
        const first = await reader.read()
        if (response.status !== 200) throw new Error(`stream refused: ${response.status} ${Buffer.from(first.value ?? []).toString()}`)
        return { replica: response.headers.get("x-svc-tts-replica"), reader, bytes: first.value?.byteLength ?? 0 }
      }),
    )
    expect(new Set(streams.map((s) => s.replica))).toEqual(new Set(['a', 'b']))
    const victim = replicas[0]!
    victim.process!.child.kill('SIGKILL')
    const outcomes = await Promise.all(
      streams.map(async (stream) => {
        try {
          for (;;) {
            const { done, value } = await stream.reader.read()
            if (done) break
            stream.bytes += value.byteLength
          }
          return { replica: stream.replica, complete: stream.bytes, failed: false }
        } catch {
          return { replica: stream.replica, complete: stream.bytes, failed: true }
        }
      }),
    )
    // The survivor's streams end whole (raw PCM: the one-shot WAV less its 44-byte header); the victim's are cut.
    for (const outcome of outcomes.filter((o) => o.replica === 'b')) expect([outcome.failed, outcome.complete]).toEqual([false, whole - 44])
    for (const outcome of outcomes.filter((o) => o.replica === 'a')) expect(outcome.failed || outcome.complete < whole - 44).toBe(true)

    const after = []
    for (let i = 0; i < 20; i++) after.push(await speak())
    expect(after.map((r) => [r.status, r.replica])).toEqual(Array(20).fill([200, 'b']))
    const kept = await fetch(`${balancer.url}/voices/${voice_id}`, { headers: { 'x-api-key': key } })
    expect(kept.status).toBe(200)
    await kept.arrayBuffer()
    // Every request acknowledged (answered with a status) since `before` is in the usage, the victim's included.
    const acknowledged = 1 + streams.length + after.length + 1
    const longCharacters = (JSON.parse(long) as { transcript: string }).transcript.length
    const shortCharacters = (JSON.parse(short) as { transcript: string }).transcript.length
    const deadline = Date.now() + 3000
    let now = await usage()
    while (now.requests - before.requests < acknowledged && Date.now() < deadline) now = await usage()
    expect(now.requests - before.requests).toBe(acknowledged)
    expect(now.characters - before.characters).toBe((1 + streams.length) * longCharacters + after.length * shortCharacters)

    await victim.process!.exit
    await startReplica(victim)
    await untilServing('a')
    const again = await fetch(`http://127.0.0.1:${victim.port}/voices/${voice_id}`, { headers: { 'x-api-key': key } })
    expect(again.status).toBe(200)
    await again.arrayBuffer()
  }, 120_000)
})
