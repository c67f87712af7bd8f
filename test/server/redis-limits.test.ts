// Per-key limits shared through Redis (lib/server/redis/): two services on one redis-server admit
// what one service would; a killed process's slot lapses within its lease; a Redis that goes away
// gets 503s at once, and a Redis that comes back serves again.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyConfig } from '../../lib/server/keys.js'
import { closeRedis, connectRedis } from '../../lib/server/redis/connection.js'
import { RedisLimiter, type RedisLimiterOptions } from '../../lib/server/redis/redis-limiter.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { serveListening } from '../helpers/served.js'
import { KEY, post, start, TEST_KEYS, type Running } from '../helpers/server.js'
import { waitUntil } from '../helpers/wait.js'

const engine = await testEngine()
const root = path.resolve(import.meta.dirname, '../..')
const flash = (transcript: string) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') } })
const LONG = Array.from({ length: 100 }, () => 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background.').join(' ')

let redis: RedisServer
let prefixes = 0
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(() => redis?.stop())

/** Services sharing the Redis, each with a client and a limiter of its own, under a prefix of the test's own. */
async function replicas(count: number, options: RedisLimiterOptions, keys: KeyConfig[] = TEST_KEYS): Promise<{ services: Running[]; limiters: RedisLimiter[]; close(): Promise<void> }> {
  const prefix = `test-${++prefixes}`
  const clients: Redis[] = []
  const limiters: RedisLimiter[] = []
  const services: Running[] = []
  for (let i = 0; i < count; i++) {
    const client = await connectRedis({ url: redis.url })
    const limiter = new RedisLimiter(client, { prefix, ...options })
    clients.push(client)
    limiters.push(limiter)
    services.push(await start('standalone', { engine, keys, limiter }))
  }
  return {
    services,
    limiters,
    close: async () => {
      await Promise.all(services.map((service) => service.close(1000)))
      for (const limiter of limiters) limiter.close()
      await Promise.all(clients.map(closeRedis))
    },
  }
}

const codeOf = async (response: Response) => ((await response.json()) as { error_code: string }).error_code

describe('limits shared through Redis', () => {
  it('a concurrency limit of 2 with 3 simultaneous requests over two services gives exactly one 429', async () => {
    const { services, close } = await replicas(2, { limits: { concurrentRequests: 2 } })
    const clients = [0, 1, 2].map(() => new AbortController())
    try {
      // Each stream holds its slot until its client leaves: it reads nothing of the long speech.
      const responses = await Promise.all(clients.map((client, i) => post(services[i % 2]!.base, '/text_to_speech/streaming', flash(LONG), {}, client.signal)))
      const statuses = responses.map((response) => response.status).sort()
      expect(statuses).toEqual([200, 200, 429])
      const refused = responses.find((response) => response.status === 429)!
      expect(await codeOf(refused)).toBe('TOO_MANY_CONCURRENT_REQUESTS')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      for (const client of clients) client.abort()
      expect(await waitUntil(() => services.every((service) => service.service.requestsInFlight === 0), 10_000)).toBe(true)
      // The slots came back to Redis: both services admit again.
      expect((await post(services[1]!.base, '/text_to_speech', flash('Hi.'))).status).toBe(200)
      expect((await post(services[0]!.base, '/text_to_speech', flash('Hi.'))).status).toBe(200)
    } finally {
      for (const client of clients) client.abort()
      await close()
    }
  })

  it("a key's own limits, kept with the key, take the place of the service's on every service; other keys keep the service's", async () => {
    const OWN = 'sk_test_own_limits_key_0123456789abcdefgh'
    const keys = [...TEST_KEYS, { key: OWN, name: 'own', limits: { concurrentRequests: 1, charactersPerPeriod: 10 } }]
    const { services: [a, b], close } = await replicas(2, { limits: { concurrentRequests: 2 } }, keys)
    const clients = [0, 1, 2, 3].map(() => new AbortController())
    try {
      const streams = (key: string, from: number) => Promise.all([a, b].map((service, i) => post(service!.base, '/text_to_speech/streaming', flash(LONG.slice(0, 9)), { 'x-api-key': key }, clients[from + i]!.signal)))
      // Two streams of 9 characters that hold their slots (unread), on both services at once.
      expect((await streams(OWN, 0)).map((response) => response.status).sort()).toEqual([200, 429])
      expect((await streams(KEY, 2)).map((response) => response.status)).toEqual([200, 200])
      for (const client of clients) client.abort()
      expect(await waitUntil(() => [a, b].every((service) => service!.service.requestsInFlight === 0), 10_000)).toBe(true)
      const over = await post(b!.base, '/text_to_speech', flash('Two.'), { 'x-api-key': OWN })
      expect([over.status, await codeOf(over)]).toEqual([429, 'USAGE_LIMIT_EXCEEDED'])
    } finally {
      for (const client of clients) client.abort()
      await close()
    }
  })

  it('characters per period and requests per window are counted once for both services, refusals not counted', async () => {
    const { services: [a, b], close } = await replicas(2, { limits: { charactersPerPeriod: 30, periodSeconds: 3600, requestsPerWindow: 5, windowSeconds: 3600 } })
    try {
      expect((await post(a!.base, '/text_to_speech', flash('Twenty characters ok'))).status).toBe(200)
      const over = await post(b!.base, '/text_to_speech', flash('Twenty characters ok'))
      expect(over.status).toBe(429)
      expect(await codeOf(over)).toBe('USAGE_LIMIT_EXCEEDED')
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500)
      // The refused 20 were not counted: the last 10 of the 30 are still there, on either service.
      expect((await post(b!.base, '/text_to_speech', flash('Ten chars.'))).status).toBe(200)
      const spent = await post(a!.base, '/text_to_speech', flash('A'))
      expect(await codeOf(spent)).toBe('USAGE_LIMIT_EXCEEDED')
      // Four requests so far over both; the fifth passes, the sixth is refused wherever it goes.
      expect((await post(b!.base, '/voices', { limit: 1 })).status).toBe(200)
      const sixth = await post(a!.base, '/voices', { limit: 1 })
      expect(sixth.status).toBe(429)
      expect(await codeOf(sixth)).toBe('RATE_LIMIT_EXCEEDED')
    } finally {
      await close()
    }
  })

  it('a concurrency refusal says when the oldest slot is expected to free, from how long slots of the key were held on any replica', async () => {
    const prefix = `test-${++prefixes}`
    const clients = [await connectRedis({ url: redis.url }), await connectRedis({ url: redis.url })]
    const [a, b] = clients.map((client) => new RedisLimiter(client, { prefix, limits: { concurrentRequests: 1 } }))
    try {
      const first = await a!.acquire('k')
      const taken = Date.now()
      await new Promise((resolve) => setTimeout(resolve, 2500))
      first()
      const holdMs = Date.now() - taken
      const held = await a!.acquire('k')
      // Slots of this key were held 2.5 s (more on a loaded machine): the one just taken is expected to free
      // about then, as b hears (a key with no history would be told 1 s).
      const refused = await b!.acquire('k').then(() => undefined, (error: { code: string; extra: { retry_after_seconds: number } }) => error)
      expect(refused?.code).toBe('TOO_MANY_CONCURRENT_REQUESTS')
      expect(refused?.extra.retry_after_seconds).toBeGreaterThanOrEqual(2)
      expect(refused?.extra.retry_after_seconds).toBeLessThanOrEqual(Math.ceil(holdMs / 1000) + 1)
      held()
      await expect(b!.acquire('k')).resolves.toBeTypeOf('function')
    } finally {
      for (const limiter of [a!, b!]) limiter.close()
      await Promise.all(clients.map(closeRedis))
    }
  })

  it("the slot of a SIGKILLed process lapses within its lease, not before", async () => {
    const prefix = `test-${++prefixes}`
    const leaseMs = 1500
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
      const { connectRedis } = await import(${JSON.stringify(path.join(root, 'lib/server/redis/connection.ts'))})
      const { RedisLimiter } = await import(${JSON.stringify(path.join(root, 'lib/server/redis/redis-limiter.ts'))})
      const limiter = new RedisLimiter(await connectRedis({ url: ${JSON.stringify(redis.url)} }), { prefix: '${prefix}', slotLeaseMs: ${leaseMs}, limits: { concurrentRequests: 1 } })
      await limiter.acquire('k')
      process.stdout.write('held\\n')
      setInterval(() => {}, 1000)
    `], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    const client = await connectRedis({ url: redis.url })
    const limiter = new RedisLimiter(client, { prefix, slotLeaseMs: leaseMs, limits: { concurrentRequests: 1 } })
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the child took no slot in 20 s')), 20_000)
        child.stdout.on('data', (data: Buffer) => {
          if (!data.toString().includes('held')) return
          clearTimeout(timer)
          resolve()
        })
      })
      // Held past several renewals: the child's renewals keep it.
      await new Promise((resolve) => setTimeout(resolve, leaseMs * 2))
      await expect(limiter.acquire('k')).rejects.toMatchObject({ code: 'TOO_MANY_CONCURRENT_REQUESTS' })
      child.kill('SIGKILL')
      const killedAt = Date.now()
      let release: (() => void) | undefined
      while (!release && Date.now() - killedAt < 5000) {
        release = await limiter.acquire('k').catch(() => undefined)
        if (!release) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(release).toBeTypeOf('function')
      expect(Date.now() - killedAt).toBeLessThanOrEqual(leaseMs + 300)
      release!()
    } finally {
      child.kill('SIGKILL')
      limiter.close()
      await closeRedis(client)
    }
  })

  it('Redis gone while serving: 503 STORE_UNAVAILABLE at once, public routes still served, and service again once it is back', async () => {
    const { services: [a], close } = await replicas(1, {})
    try {
      expect((await post(a!.base, '/text_to_speech', flash('Before.'))).status).toBe(200)
      await redis.kill()
      const asked = Date.now()
      const refused = await post(a!.base, '/text_to_speech', flash('During.'))
      expect(Date.now() - asked).toBeLessThan(2500)
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('1')
      expect(await codeOf(refused)).toBe('STORE_UNAVAILABLE')
      expect((await fetch(`${a!.base}/`, { headers: { version: 'v1' } })).status).toBe(200)
      await redis.start()
      const back = Date.now()
      let status = 0
      while (status !== 200 && Date.now() - back < 10_000) {
        status = (await post(a!.base, '/text_to_speech', flash('After.'), { 'x-api-key': KEY })).status
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status).toBe(200)
    } finally {
      await close()
    }
  })
})

describe('svc-tts serve --redis-url', () => {
  it('two servers, one by the flag and one by SVC_TTS_REDIS_URL, count their requests in the one Redis', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-redis-serve-'))
    const env = { SVC_TTS_API_KEYS: KEY }
    const servers = await Promise.all([
      serveListening(dataDir, 'standalone', { env, args: ['--redis-url', redis.url] }),
      serveListening(dataDir, 'standalone', { env: { ...env, SVC_TTS_REDIS_URL: redis.url } }),
    ])
    const client = await connectRedis({ url: redis.url })
    try {
      for (const server of servers) expect((await post(server.url, '/text_to_speech', flash('Shared.'))).status).toBe(200)
      const counters = await client.keys('svc-tts:*}:requests')
      expect(counters, String(counters)).toHaveLength(1)
      expect(await client.get(counters[0]!)).toBe('2')
      expect(Number(await client.get(counters[0]!.replace(/requests$/, 'characters')))).toBe(2 * 'Shared.'.length)
    } finally {
      await closeRedis(client)
      expect(await Promise.all(servers.map((server) => server.stop(15_000)))).toEqual([0, 0])
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('--slot-lease-seconds: the slot a SIGKILLed server held frees within that lease for the server started after it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-redis-lease-'))
    const args = ['--redis-url', redis.url, '--limits', 'concurrentRequests=1', '--slot-lease-seconds', '1']
    const first = await serveListening(dataDir, 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args })
    const holder = new AbortController()
    let second: Awaited<ReturnType<typeof serveListening>> | undefined
    try {
      expect((await post(first.url, '/text_to_speech/streaming', flash(LONG), {}, holder.signal)).status).toBe(200)
      first.child.kill('SIGKILL')
      await first.exit
      const killedAt = Date.now()
      second = await serveListening(dataDir, 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args })
      const startMs = Date.now() - killedAt
      let status = 0
      while (status !== 200 && Date.now() - killedAt < 5000) {
        status = (await post(second.url, '/text_to_speech', flash('Free again.'))).status
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(status).toBe(200)
      // Within the lease (or the second server's start, if that took longer), where the default lease is 15 s.
      expect(Date.now() - killedAt).toBeLessThan(Math.max(1000, startMs) + 700)
    } finally {
      holder.abort()
      expect(await second?.stop(15_000)).toBe(0)
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('with Redis down at its start it still listens, warns once, answers 503 STORE_UNAVAILABLE, and stops cleanly', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-redis-down-'))
    // Port 1 on loopback: nothing listens there, the connection is refused.
    const server = await serveListening(dataDir, 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args: ['--redis-url', 'redis://127.0.0.1:1'] })
    try {
      const refused = await post(server.url, '/text_to_speech', flash('Down.'))
      expect(refused.status).toBe(503)
      expect(await codeOf(refused)).toBe('STORE_UNAVAILABLE')
      expect(server.lines.filter((line) => line.includes('"warn"') && line.includes('is unreachable'))).toHaveLength(1)
    } finally {
      expect(await server.stop(15_000)).toBe(0)
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
