/**
 * Per-key limits behind a small interface, so a shared store (Redis, a database) can replace the
 * in-memory one: concurrent requests (each live WebSocket context counts) and, apart, concurrent
 * uploads (each holds its sample in memory), requests per window, and characters per period. A
 * refusal is a 429 TtsError whose `extra.retry_after_seconds` the adapters send as Retry-After:
 * for concurrency, when a slot is expected to free (from how long this key's slots were held).
 */
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { parseWith, strictObject } from '../validation/parse.js'

/** What a concurrency slot is for: a request (synthesis, a context) or an upload (a voice sample). */
export type SlotPool = 'requests' | 'uploads'

/**
 * The limits `own` arguments carry: a key's own counts, kept with the key, in place of the
 * limiter's (the windows' lengths are the limiter's for every key).
 */
export interface Limiter {
  /** Takes a concurrency slot of `pool`; call the returned function once to give it back. */
  acquire(keyId: string, pool?: SlotPool, own?: KeyLimits): Promise<() => void>
  /** Counts one request in the current window. */
  hit(keyId: string, own?: KeyLimits): Promise<void>
  /** Counts `characters` of text in the current usage period. */
  charge(keyId: string, characters: number, own?: KeyLimits): Promise<void>
}

export const limitsSchema = strictObject({
  concurrentRequests: z.number().int().min(1).default(128),
  /** Uploads (voice clones) in flight per key: each holds up to a 20 MiB sample while it is analysed. */
  concurrentUploads: z.number().int().min(1).default(2),
  requestsPerWindow: z.number().int().min(1).default(1200),
  windowSeconds: z.number().positive().default(60),
  charactersPerPeriod: z.number().int().min(1).default(5_000_000),
  periodSeconds: z.number().positive().default(3600),
})
export type LimitOptions = z.input<typeof limitsSchema>
export type Limits = z.output<typeof limitsSchema>

/** What one key may have of its own (kept with the key: its file entry or database row). */
export const keyLimitsSchema = strictObject({
  concurrentRequests: z.number().int().min(1).optional(),
  concurrentUploads: z.number().int().min(1).optional(),
  requestsPerWindow: z.number().int().min(1).optional(),
  charactersPerPeriod: z.number().int().min(1).optional(),
})
export type KeyLimits = z.output<typeof keyLimitsSchema>

/** The counts that hold for one key: its own where it has them, else the limiter's. */
export function limitsFor(limits: Limits, own: KeyLimits | undefined): Limits {
  return own ? { ...limits, ...own } : limits
}

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

/** Slots of one key in one pool: when each held one was taken, and how long slots were held lately. */
interface Slots {
  heldSince: Set<{ since: number }>
  /** Exponentially weighted mean of how long a slot was held, in ms (undefined before the first release). */
  typicalHoldMs: number | undefined
}

/** When a key's slots have no history yet: one second, the shortest Retry-After. */
const FIRST_HOLD_GUESS_MS = 1000

export class MemoryLimiter implements Limiter {
  readonly limits: Limits
  private readonly slots = new Map<string, Slots>()
  private readonly requests: Windows
  private readonly characters: Windows

  constructor(options: LimitOptions = {}, private readonly now: () => number = Date.now) {
    this.limits = parseWith(limitsSchema, options, 'limits')
    this.requests = new Windows(this.limits.windowSeconds * 1000)
    this.characters = new Windows(this.limits.periodSeconds * 1000)
  }

  async acquire(keyId: string, pool: SlotPool = 'requests', own?: KeyLimits): Promise<() => void> {
    const { concurrentUploads, concurrentRequests } = limitsFor(this.limits, own)
    const limit = pool === 'uploads' ? concurrentUploads : concurrentRequests
    const name = `${pool}:${keyId}`
    const slots = this.slots.get(name) ?? { heldSince: new Set<{ since: number }>(), typicalHoldMs: undefined }
    const now = this.now()
    if (slots.heldSince.size >= limit) {
      // The oldest slot is the likeliest to free first: when it has been held as long as slots usually are.
      const oldest = slots.heldSince.values().next().value!.since
      const expected = oldest + (slots.typicalHoldMs ?? FIRST_HOLD_GUESS_MS) - now
      throw refuse('TOO_MANY_CONCURRENT_REQUESTS', `this key already has ${slots.heldSince.size} ${pool} in flight (limit ${limit})`, expected)
    }
    const slot = { since: now }
    slots.heldSince.add(slot)  // in the order taken: the first is the oldest
    this.slots.set(name, slots)
    let released = false
    return () => {
      if (released) return
      released = true
      slots.heldSince.delete(slot)
      const held = this.now() - slot.since
      slots.typicalHoldMs = slots.typicalHoldMs === undefined ? held : 0.8 * slots.typicalHoldMs + 0.2 * held
    }
  }

  async hit(keyId: string, own?: KeyLimits): Promise<void> {
    const { requestsPerWindow } = limitsFor(this.limits, own)
    const wait = this.requests.add(keyId, 1, requestsPerWindow, this.now())
    if (wait !== undefined) {
      throw refuse('RATE_LIMIT_EXCEEDED', `more than ${requestsPerWindow} requests in ${this.limits.windowSeconds} s`, wait)
    }
  }

  async charge(keyId: string, characters: number, own?: KeyLimits): Promise<void> {
    const { charactersPerPeriod } = limitsFor(this.limits, own)
    const wait = this.characters.add(keyId, characters, charactersPerPeriod, this.now())
    if (wait !== undefined) {
      throw refuse('USAGE_LIMIT_EXCEEDED', `more than ${charactersPerPeriod} characters in ${this.limits.periodSeconds} s`, wait)
    }
  }
}

/** `limiter` with each key's own limits, as `keys` holds them now, passed to every check. */
export function withKeyLimits(limiter: Limiter, keys: { limitsOf(keyId: string): KeyLimits | undefined }): Limiter {
  return {
    acquire: (keyId, pool, own) => limiter.acquire(keyId, pool, own ?? keys.limitsOf(keyId)),
    hit: (keyId, own) => limiter.hit(keyId, own ?? keys.limitsOf(keyId)),
    charge: (keyId, characters, own) => limiter.charge(keyId, characters, own ?? keys.limitsOf(keyId)),
  }
}
