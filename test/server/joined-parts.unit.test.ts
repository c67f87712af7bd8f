import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { joinedParts } from '../../lib/server/joined-parts.js'
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
    const out = await collect(joinedParts(generator, 16_000))
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
    const iterator = joinedParts(generator, 8_000)
    await iterator.next()
    expect(state.read).toBeLessThanOrEqual(9)
    await sleep(20)
    expect(state.read).toBeLessThanOrEqual(9)
    await iterator.return(undefined)
    expect(state.returned).toBe(true)
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
