/**
 * What the service keeps per key for its realtime connections: the check that the key still
 * admits realtime work, and the key's message rate across all of its connections. A connection's
 * own bounds (lib/realtime/intake.ts) stop one socket; the key's bucket outlives its connections,
 * so a client that floods through many sockets, or reconnects to start with a full bucket, is
 * held to the key's rate all the same. A key whose connection was closed for flooding is refused
 * new WebSockets for a moment: each handshake of a client that reconnects at once would otherwise
 * cost a socket, and the frames it sent before it saw the close.
 */
import { TtsError } from '../errors.js'
import { TokenBucket } from '../realtime/intake.js'
import type { KeyStore, Principal } from './keys.js'

export const REALTIME_SCOPE = 'text_to_speech'
/** The errors a WebSocket is closed for when its client floods. */
export const FLOODING: ReadonlySet<string> = new Set(['MESSAGE_RATE_EXCEEDED', 'MESSAGE_QUEUE_FULL', 'UNREAD_OUTPUT_EXCEEDED'])
/** How long a key's handshakes are refused after one of its connections was closed for flooding. */
export const FLOOD_COOL_DOWN_MS = 1000

/** The key's principal as the store holds it now, or INVALID_API_KEY when it is gone or lacks the realtime scope. */
export function currentPrincipal(keys: KeyStore, principal: Principal): Principal {
  const current = keys.principal(principal.keyId)
  if (!current) throw new TtsError('INVALID_API_KEY', 'the API key was revoked')
  if (!current.scopes.includes(REALTIME_SCOPE)) throw new TtsError('INVALID_API_KEY', `the API key lacks the '${REALTIME_SCOPE}' scope`)
  return current
}

export class KeyMessageRates {
  /** One bucket per key that has sent a message: no more than the store's keys. */
  private readonly buckets = new Map<string, TokenBucket>()
  /** Keys cooling down after a flood, and until when (performance.now()). */
  private readonly cooling = new Map<string, number>()

  constructor(private readonly messagesPerSecond: number, private readonly burst: number) {}

  /** Takes `cost` messages from the key's bucket, or throws MESSAGE_RATE_EXCEEDED. */
  take(keyId: string, cost: number): void {
    if (!this.bucketOf(keyId).take(cost)) throw this.refusal(`a key's connections send at most ${this.messagesPerSecond} messages a second together (a burst of ${this.burst})`)
  }

  /**
   * Throws MESSAGE_RATE_EXCEEDED while the key's bucket is empty or the key cools down after a
   * flood: a handshake then is refused before the upgrade, so a client that reconnects each time it
   * is closed costs an HTTP answer, not a socket.
   */
  check(keyId: string): void {
    const until = this.cooling.get(keyId)
    if (until !== undefined && performance.now() < until) throw this.refusal(`a WebSocket of this key was closed for flooding: new ones are refused for ${FLOOD_COOL_DOWN_MS} ms`)
    this.cooling.delete(keyId)
    const bucket = this.buckets.get(keyId)
    if (bucket && bucket.available() < 1) throw this.refusal(`this key's connections have spent their ${this.messagesPerSecond} messages a second`)
  }

  /** One of the key's connections was closed for flooding. */
  coolDown(keyId: string): void {
    this.cooling.set(keyId, performance.now() + FLOOD_COOL_DOWN_MS)
  }

  /** Forgets what it keeps of keys the store no longer holds. */
  prune(keys: KeyStore): void {
    for (const keyId of this.buckets.keys()) if (!keys.principal(keyId)) this.buckets.delete(keyId)
    for (const keyId of this.cooling.keys()) if (!keys.principal(keyId)) this.cooling.delete(keyId)
  }

  private bucketOf(keyId: string): TokenBucket {
    let bucket = this.buckets.get(keyId)
    if (!bucket) this.buckets.set(keyId, (bucket = new TokenBucket(this.messagesPerSecond, this.burst)))
    return bucket
  }

  private refusal(message: string): TtsError {
    return new TtsError('MESSAGE_RATE_EXCEEDED', message, { extra: { retry_after_seconds: 1 } })
  }
}
