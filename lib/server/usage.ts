/**
 * What each key used: requests admitted (HTTP requests, WebSocket connections and contexts) and
 * characters charged, recorded where they pass the limiter, so that what is counted against a
 * key's limits and what is recorded as its usage are the same events.
 */
import type { Limiter } from './limits.js'

export interface UsageLedger {
  /**
   * Records use by `keyId` now: resolves once it is written, or kept to be written later where the
   * ledger cannot write now; never rejects.
   */
  record(keyId: string, use: { requests?: number; characters?: number }): Promise<void>
}

/** `limiter`, recording in `ledger` every request and every character it lets through, before the request goes on (what a client was answered is counted). */
export function withUsage(limiter: Limiter, ledger: UsageLedger): Limiter {
  return {
    acquire: (keyId, pool, own) => limiter.acquire(keyId, pool, own),
    hit: async (keyId, own) => {
      await limiter.hit(keyId, own)
      await ledger.record(keyId, { requests: 1 })
    },
    charge: async (keyId, characters, own) => {
      await limiter.charge(keyId, characters, own)
      await ledger.record(keyId, { characters })
    },
  }
}
