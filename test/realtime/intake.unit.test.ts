import { describe, expect, it } from 'vitest'
import { FrameIntake, frameCost, TokenBucket } from '../../lib/realtime/intake.js'

describe('the bounds of a connection\'s intake', () => {
  it('a token bucket starts full, refills at its rate up to its burst, and lets a frame larger than the burst pass on a full bucket', () => {
    let now = 0
    const bucket = new TokenBucket(10, 5, () => now)
    expect([1, 2, 3, 4, 5].map(() => bucket.take(1))).toEqual([true, true, true, true, true])
    expect(bucket.take(1)).toBe(false)
    now += 100  // one token back
    expect(bucket.take(1)).toBe(true)
    expect(bucket.take(1)).toBe(false)
    now += 60_000  // never more than the burst
    expect(bucket.available()).toBe(5)
    expect(bucket.take(50)).toBe(true)  // costs the whole bucket
    expect(bucket.take(1)).toBe(false)
  })

  it('a frame costs one message per started KiB', () => {
    expect([0, 2, 1024, 1025, 1024 * 1024].map(frameCost)).toEqual([1, 1, 1, 2, 1024])
  })

  it('refuses a frame past the rate with MESSAGE_RATE_EXCEEDED and one past the queue with MESSAGE_QUEUE_FULL', () => {
    const now = 0
    const rated = new FrameIntake({ messagesPerSecond: 1, messageBurst: 2, maxQueuedMessages: 100, maxQueuedBytes: 1e6 }, () => now)
    rated.admit(10)
    rated.admit(10)
    expect(() => rated.admit(10)).toThrow(expect.objectContaining({ code: 'MESSAGE_RATE_EXCEEDED' }))

    const queued = new FrameIntake({ messagesPerSecond: 1e6, messageBurst: 1e6, maxQueuedMessages: 2, maxQueuedBytes: 100 }, () => now)
    queued.admit(10)
    queued.admit(10)
    expect(() => queued.admit(10)).toThrow(expect.objectContaining({ code: 'MESSAGE_QUEUE_FULL' }))
    queued.handled(10)
    queued.admit(10)
    queued.handled(10)
    expect(() => queued.admit(95)).toThrow(expect.objectContaining({ code: 'MESSAGE_QUEUE_FULL' }))  // bytes
  })
})
