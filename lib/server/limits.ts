/**
 * Per-key limits behind a small interface, so a shared store (Redis, a database) can replace the
 * in-memory one: concurrent requests (each live WebSocket context counts), requests per window,
 * and characters per period. A refusal is a 429 TtsError whose `extra.retry_after_seconds` the
 * adapters send as Retry-After.
 */
import { z } from 'zod'
import { TtsError } from '../errors.js'

export interface Limiter {
  /** Takes a concurrency slot; call the returned function once to give it back. */
  acquire(keyId: string): Promise<() => void>
  /** Counts one request in the current window. */
  hit(keyId: string): Promise<void>
  /** Counts `characters` of text in the current usage period. */
  charge(keyId: string, characters: number): Promise<void>
}

export const limitsSchema = z.object({
  concurrentRequests: z.number().int().min(1).default(128),
  requestsPerWindow: z.number().int().min(1).default(1200),
  windowSeconds: z.number().positive().default(60),
  charactersPerPeriod: z.number().int().min(1).default(5_000_000),
  periodSeconds: z.number().positive().default(3600),
})
export type LimitOptions = z.input<typeof limitsSchema>
export type Limits = z.output<typeof limitsSchema>

function refuse(code: 'TOO_MANY_CONCURRENT_REQUESTS' | 'RATE_LIMIT_EXCEEDED' | 'USAGE_LIMIT_EXCEEDED', message: string, retryAfterMs: number): TtsError {
  return new TtsError(code, message, { extra: { retry_after_seconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) } })
}

/** A fixed window per key: the count and when the window ends. */
class Windows {
  private readonly byKey = new Map<string, { used: number; endsAt: number }>()

  constructor(private readonly lengthMs: number) {}

  /** Adds `amount` if it fits under `limit`; returns the ms until the window ends when it does not. */
  add(keyId: string, amount: number, limit: number, now: number): number | undefined {
    let window = this.byKey.get(keyId)
    if (!window || window.endsAt <= now) {
      window = { used: 0, endsAt: now + this.lengthMs }
      this.byKey.set(keyId, window)
    }
    if (window.used + amount > limit) return window.endsAt - now
    window.used += amount
    return undefined
  }
}

export class MemoryLimiter implements Limiter {
  readonly limits: Limits
  private readonly active = new Map<string, number>()
  private readonly requests: Windows
  private readonly characters: Windows

  constructor(options: LimitOptions = {}, private readonly now: () => number = Date.now) {
    this.limits = limitsSchema.parse(options)
    this.requests = new Windows(this.limits.windowSeconds * 1000)
    this.characters = new Windows(this.limits.periodSeconds * 1000)
  }

  async acquire(keyId: string): Promise<() => void> {
    const count = this.active.get(keyId) ?? 0
    if (count >= this.limits.concurrentRequests) {
      throw refuse('TOO_MANY_CONCURRENT_REQUESTS', `this key already has ${count} requests in flight (limit ${this.limits.concurrentRequests})`, 1000)
    }
    this.active.set(keyId, count + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.active.get(keyId) ?? 1) - 1
      if (left) this.active.set(keyId, left)
      else this.active.delete(keyId)
    }
  }

  async hit(keyId: string): Promise<void> {
    const wait = this.requests.add(keyId, 1, this.limits.requestsPerWindow, this.now())
    if (wait !== undefined) {
      throw refuse('RATE_LIMIT_EXCEEDED', `more than ${this.limits.requestsPerWindow} requests in ${this.limits.windowSeconds} s`, wait)
    }
  }

  async charge(keyId: string, characters: number): Promise<void> {
    const wait = this.characters.add(keyId, characters, this.limits.charactersPerPeriod, this.now())
    if (wait !== undefined) {
      throw refuse('USAGE_LIMIT_EXCEEDED', `more than ${this.limits.charactersPerPeriod} characters in ${this.limits.periodSeconds} s`, wait)
    }
  }
}
