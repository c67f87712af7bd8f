// Issue 20, case 17: a concurrency refusal's Retry-After was always 1 s, and a retry after it was
// refused again. It now says when a slot is expected to free, from how long this key held slots.
import { describe, expect, it } from 'vitest'
import { MemoryLimiter } from '../../lib/server/limits.js'

function clock(): { now: () => number; advance(ms: number): void } {
  let time = 1_000_000
  return { now: () => time, advance: (ms) => (time += ms) }
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; extra: { retry_after_seconds: number } }> {
  return work.then(() => { throw new Error('not refused') }, (error: { code: string; extra: { retry_after_seconds: number } }) => error)
}

describe('concurrency refusals', () => {
  it('say when the oldest slot is expected to free, and a retry then gets a slot', async () => {
    const time = clock()
    const limiter = new MemoryLimiter({ concurrentRequests: 1 }, time.now)
    // Requests of this key hold their slot about 6 s.
    for (let i = 0; i < 3; i++) {
      const release = await limiter.acquire('k')
      time.advance(6000)
      release()
    }
    const held = await limiter.acquire('k')
    time.advance(1500)
    const refused = await refusal(limiter.acquire('k'))
    expect(refused.code).toBe('TOO_MANY_CONCURRENT_REQUESTS')
    expect(refused.extra.retry_after_seconds).toBe(5)  // 6 s held typically, 1.5 s of it gone
    time.advance(refused.extra.retry_after_seconds * 1000)
    held()  // the slot freed when it was expected to
    await expect(limiter.acquire('k')).resolves.toBeTypeOf('function')
  })

  it('keep uploads in a pool of their own', async () => {
    const limiter = new MemoryLimiter({ concurrentRequests: 8, concurrentUploads: 1 })
    await limiter.acquire('k', 'uploads')
    await expect(refusal(limiter.acquire('k', 'uploads'))).resolves.toMatchObject({ code: 'TOO_MANY_CONCURRENT_REQUESTS' })
    await expect(limiter.acquire('k', 'requests')).resolves.toBeTypeOf('function')
  })
})
