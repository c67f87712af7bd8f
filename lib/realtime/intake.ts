/**
 * What one client may make a connection do, bounded before any frame of it is parsed: a message
 * rate (a token bucket) and the frames waiting their turn (count and bytes). Frames are handled one
 * after the other on a queue; without these bounds a client that sends faster than frames are
 * handled grows that queue without end and keeps the event loop for itself.
 */
import { TtsError } from '../errors.js'

/** A frame costs one message per started FRAME_UNIT_BYTES, so a large frame is paid as its parsing costs. */
export const FRAME_UNIT_BYTES = 1024

export interface IntakeLimits {
  /** Messages a second a connection may send, sustained (default 200). */
  messagesPerSecond: number
  /** Messages a connection may send at once above that rate (default 400). */
  messageBurst: number
  /** Frames received and not yet handled (default 1024, above the burst: a burst in one read is queued before any of it is handled). */
  maxQueuedMessages: number
  /** Bytes of those frames (default 4 MiB). */
  maxQueuedBytes: number
}

export const DEFAULT_INTAKE_LIMITS: IntakeLimits = { messagesPerSecond: 200, messageBurst: 400, maxQueuedMessages: 1024, maxQueuedBytes: 4 * 1024 * 1024 }

/** The messages a frame of `bytes` counts as. */
export function frameCost(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / FRAME_UNIT_BYTES))
}

/** `rate` tokens a second, at most `burst` saved up; it starts full. */
export class TokenBucket {
  private tokens: number
  private last: number

  constructor(readonly rate: number, readonly burst: number, private readonly now: () => number = () => performance.now()) {
    this.tokens = burst
    this.last = now()
  }

  /** Takes `cost` tokens (at most a full bucket, so a largest frame can pass) if they are there. */
  take(cost: number): boolean {
    const wanted = Math.min(cost, this.burst)
    if (this.available() < wanted) return false
    this.tokens -= wanted
    return true
  }

  /** The tokens there now. */
  available(): number {
    const now = this.now()
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate)
    this.last = now
    return this.tokens
  }
}

/** One connection's intake: each frame is admitted (or refused with its code) and later marked handled. */
export class FrameIntake {
  private readonly bucket: TokenBucket
  private queued = 0
  private queuedBytes = 0

  constructor(private readonly limits: IntakeLimits, now?: () => number) {
    this.bucket = new TokenBucket(limits.messagesPerSecond, limits.messageBurst, now)
  }

  /** Counts a frame of `bytes` in, or throws MESSAGE_RATE_EXCEEDED or MESSAGE_QUEUE_FULL. */
  admit(bytes: number): void {
    if (!this.bucket.take(frameCost(bytes))) {
      const { messagesPerSecond, messageBurst } = this.limits
      throw new TtsError('MESSAGE_RATE_EXCEEDED', `a connection sends at most ${messagesPerSecond} messages a second (a burst of ${messageBurst}; a message per started ${FRAME_UNIT_BYTES} bytes)`)
    }
    if (this.queued >= this.limits.maxQueuedMessages || this.queuedBytes + bytes > this.limits.maxQueuedBytes) {
      throw new TtsError('MESSAGE_QUEUE_FULL', `more than ${this.limits.maxQueuedMessages} messages or ${this.limits.maxQueuedBytes} bytes wait to be handled`)
    }
    this.queued += 1
    this.queuedBytes += bytes
  }

  /** A frame admitted earlier was handled. */
  handled(bytes: number): void {
    this.queued -= 1
    this.queuedBytes -= bytes
  }
}
