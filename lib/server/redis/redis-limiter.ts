/**
 * Per-key limits shared by every replica through one Redis: requests per window, characters per
 * period and concurrency slots are counted there, each check with its count in one script, so N
 * replicas admit what one would. A slot is a lease the replica holding it renews; the slots of a
 * replica that died lapse within `slotLeaseMs`. While Redis is unreachable every check refuses
 * with 503 STORE_UNAVAILABLE at once (docs/server.md#redis).
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import * as z from 'zod'
import { TtsError } from '../../errors.js'
import { parseWith, strictObject } from '../../validation/parse.js'
import { limitsFor, limitsSchema, type KeyLimits, type Limiter, type Limits, type SlotPool } from '../limits.js'
import { unavailable } from './connection.js'
import { limitScripts, type LimitScripts } from './limit-scripts.js'

/** When a key's slots have no history yet: one second, the shortest Retry-After. */
const FIRST_HOLD_GUESS_MS = 1000
/** How long a key's typical hold is remembered after its last release. */
const HOLD_MEMORY_MS = 24 * 3600 * 1000

export const redisLimiterOptionsSchema = strictObject({
  limits: limitsSchema.optional(),
  /** Prefix of every key this limiter writes (replicas that share limits share it). */
  prefix: z.string().min(1).default('svc-tts'),
  /** How long a slot outlives a replica that stopped renewing it (it is renewed every third of this). */
  slotLeaseMs: z.number().int().min(300).default(15_000),
})
export type RedisLimiterOptions = z.input<typeof redisLimiterOptionsSchema>

function retryAfter(ms: number): { retry_after_seconds: number } {
  return { retry_after_seconds: Math.max(1, Math.ceil(ms / 1000)) }
}

export class RedisLimiter implements Limiter {
  readonly limits: Limits
  readonly slotLeaseMs: number
  private readonly prefix: string
  private readonly scripts: LimitScripts
  /** The slots this replica holds, by their sorted set: renewed together. */
  private readonly held = new Map<string, Set<string>>()
  private readonly renewal: NodeJS.Timeout

  /** `client` is the caller's (connectRedis): closing the limiter does not close it. */
  constructor(client: Redis, options: RedisLimiterOptions = {}) {
    const parsed = parseWith(redisLimiterOptionsSchema, options, 'Redis limiter options')
    this.limits = parsed.limits ?? parseWith(limitsSchema, {}, 'limits')
    this.prefix = parsed.prefix
    this.slotLeaseMs = parsed.slotLeaseMs
    this.scripts = limitScripts(client)
    this.renewal = setInterval(() => this.renew(), Math.floor(this.slotLeaseMs / 3))
    this.renewal.unref()
  }

  /** Keys of one API key share a hash tag, so that a script's keys sit on one Redis Cluster node. */
  private key(keyId: string, what: string): string {
    return `${this.prefix}:{${keyId}}:${what}`
  }

  async acquire(keyId: string, pool: SlotPool = 'requests', own?: KeyLimits): Promise<() => void> {
    const { concurrentUploads, concurrentRequests } = limitsFor(this.limits, own)
    const limit = pool === 'uploads' ? concurrentUploads : concurrentRequests
    const slots = this.key(keyId, `slots:${pool}`)
    const hold = this.key(keyId, `hold:${pool}`)
    const answer = await this.scripts.acquire(slots, hold, randomUUID(), limit, this.slotLeaseMs).catch((cause: unknown) => {
      throw unavailable(cause)
    })
    if (answer[0] === 0) {
      const [, count, oldestHeldMs, typicalMs] = answer
      const expected = (typicalMs >= 0 ? typicalMs : FIRST_HOLD_GUESS_MS) - oldestHeldMs
      throw new TtsError('TOO_MANY_CONCURRENT_REQUESTS', `this key already has ${count} ${pool} in flight (limit ${limit})`, { extra: retryAfter(expected) })
    }
    const member = answer[1]
    const mine = this.held.get(slots) ?? new Set<string>()
    mine.add(member)
    this.held.set(slots, mine)
    let released = false
    return () => {
      if (released) return
      released = true
      mine.delete(member)
      if (mine.size === 0) this.held.delete(slots)
      // Unreachable now: the lease lapses on its own, no later than slotLeaseMs.
      this.scripts.release(slots, hold, member, HOLD_MEMORY_MS).catch(() => {})
    }
  }

  async hit(keyId: string, own?: KeyLimits): Promise<void> {
    const { requestsPerWindow, windowSeconds } = limitsFor(this.limits, own)
    const wait = await this.add(this.key(keyId, 'requests'), 1, requestsPerWindow, windowSeconds)
    if (wait >= 0) throw new TtsError('RATE_LIMIT_EXCEEDED', `more than ${requestsPerWindow} requests in ${windowSeconds} s`, { extra: retryAfter(wait) })
  }

  async charge(keyId: string, characters: number, own?: KeyLimits): Promise<void> {
    const { charactersPerPeriod, periodSeconds } = limitsFor(this.limits, own)
    const wait = await this.add(this.key(keyId, 'characters'), characters, charactersPerPeriod, periodSeconds)
    if (wait >= 0) throw new TtsError('USAGE_LIMIT_EXCEEDED', `more than ${charactersPerPeriod} characters in ${periodSeconds} s`, { extra: retryAfter(wait) })
  }

  /** Stops renewing this replica's slots (what it still holds lapses within slotLeaseMs). */
  close(): void {
    clearInterval(this.renewal)
    this.held.clear()
  }

  private add(key: string, amount: number, limit: number, seconds: number): Promise<number> {
    return this.scripts.windowAdd(key, amount, limit, Math.round(seconds * 1000)).catch((cause: unknown) => {
      throw unavailable(cause)
    })
  }

  private renew(): void {
    for (const [slots, members] of this.held) {
      // A renewal lost while Redis is away is not retried: the next one comes a third of a lease later.
      this.scripts.renew(slots, this.slotLeaseMs, [...members]).catch(() => {})
    }
  }
}
