import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { AHEAD_MARGIN_MS, joinedParts, MAX_HOLD_MS } from '../../lib/server/joined-parts.js'
import { startStream } from '../../lib/server/tts-routes.js'

const part = (index: number, bytes = 1000) => Buffer.alloc(bytes, index)

/** Parts 0..count-1, the ones in `late` made after a pause; counts what was read. */
function source(count: number, late: Set<number> = new Set(), bytes = 1000) {
  const state = { read: 0, returned: false }
  const generator = (async function* () {
    try {
      for (let i = 0; i < count; i++) {
        if (late.has(i)) await sleep(30)
        state.read++
        yield part(i, bytes)
      }
    } finally {
      state.returned = true
    }
  })()
  return { generator, state }
}

async function collect(parts: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = []
  for await (const p of parts) out.push(p)
  return out
}

describe('joinedParts', () => {
  it('joins the parts ready together, up to the bound, in order', async () => {
    const { generator } = source(200)
    const out = await collect(joinedParts(generator, { maxBytes: 16_000 }))
    expect(Buffer.concat(out).equals(Buffer.concat(Array.from({ length: 200 }, (_, i) => part(i))))).toBe(true)
    expect(out.length).toBeLessThanOrEqual(Math.ceil(200 / 16) + 1)
    expect(Math.max(...out.map((p) => p.length))).toBeLessThanOrEqual(16_000)
  })

  it('does not wait for a part that is not ready', async () => {
    const { generator } = source(4, new Set([2]))
    const started = performance.now()
    const iterator = joinedParts(generator)
    const first = await iterator.next()
    expect(performance.now() - started).toBeLessThan(25)
    expect(first.value).toEqual(Buffer.concat([part(0), part(1)]))
    expect((await iterator.next()).value).toEqual(Buffer.concat([part(2), part(3)]))
    expect((await iterator.next()).done).toBe(true)
  })

  it('reads only as it is read: one part ahead at most, and the source is closed when the reader stops', async () => {
    const { generator, state } = source(10_000)
    const iterator = joinedParts(generator, { maxBytes: 8_000 })
    await iterator.next()
    expect(state.read).toBeLessThanOrEqual(9)
    await sleep(20)
    expect(state.read).toBeLessThanOrEqual(9)
    await iterator.return(undefined)
    expect(state.returned).toBe(true)
  })
})

/** Parts made `everyMs` apart; each read's time, and when each joined write left, from the reader's start. */
function paced(count: number, everyMs: number) {
  const generator = (async function* () {
    for (let i = 0; i < count; i++) {
      await sleep(everyMs)
      yield part(i)
    }
  })()
  return generator
}

async function timedWrites(parts: AsyncIterable<Buffer>): Promise<{ at: number; bytes: number }[]> {
  const started = performance.now()
  const writes: { at: number; bytes: number }[] = []
  for await (const p of parts) writes.push({ at: performance.now() - started, bytes: p.length })
  return writes
}

describe('joinedParts while the client has audio in hand', () => {
  // 1000 bytes a part at 10 000 bytes a second: 100 ms of audio a part, made every 10 ms.
  const bytesPerSecond = 10_000

  it('holds the parts made apart into one write while the client holds more than the margin, no part longer than the hold', async () => {
    const sent = { bytes: bytesPerSecond * 5, since: performance.now() }  // 5 s of audio in hand
    const writes = await timedWrites(joinedParts(paced(20, 10), { bytesPerSecond, sent }))
    expect(writes.reduce((sum, w) => sum + w.bytes, 0)).toBe(20_000)
    // 200 ms of parts in writes of at most MAX_HOLD_MS of them: not one write a part.
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(200 / MAX_HOLD_MS) + 2)
    expect(writes.length).toBeGreaterThanOrEqual(2)
  })

  it('writes each part in its own turn when the client holds less than the margin', async () => {
    const sent = { bytes: Math.floor((bytesPerSecond * AHEAD_MARGIN_MS) / 1000 / 2), since: performance.now() }
    // 20 ms apart, each part 1 ms of audio: the client never gets ahead of the margin.
    const writes = await timedWrites(joinedParts(paced(5, 20), { bytesPerSecond: 1_000_000, sent }))
    expect(writes.map((w) => w.bytes)).toEqual([1000, 1000, 1000, 1000, 1000])
  })

  it('does not hold past the end of the source', async () => {
    const sent = { bytes: bytesPerSecond * 5, since: performance.now() }
    const writes = await timedWrites(joinedParts(paced(2, 5), { bytesPerSecond, sent }))
    expect(writes).toHaveLength(1)
    expect(writes[0]!.at).toBeLessThan(5 + MAX_HOLD_MS)
  })
})

describe('startStream', () => {
  it('hands on the first chunk alone, before the next is made', async () => {
    const { generator, state } = source(3, new Set([1]))
    const iterator = (await startStream(generator))[Symbol.asyncIterator]()
    expect((await iterator.next()).value).toEqual(part(0))
    expect(state.read).toBe(1)
    expect(Buffer.concat(await collect({ [Symbol.asyncIterator]: () => iterator }))).toEqual(Buffer.concat([part(1), part(2)]))
  })
})
