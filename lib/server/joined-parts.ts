/**
 * A response's parts after its first, joined into fewer, larger writes: each write on a response
 * costs the main thread a chunk frame and a system call, whatever its size. The parts the source
 * has ready within one turn of the event loop go out together, up to a bound; a part that is not
 * ready yet is not waited for. Reading stays pull-based: one read ahead at most, so what is held
 * is bounded by `maxBytes` and one part.
 */
const TURN = Symbol('turn')

/** Settles in the event loop's check phase, after the reads ready now (settled in microtasks) have settled. */
const endOfTurn = () => new Promise<typeof TURN>((resolve) => setImmediate(resolve, TURN))

export const JOINED_BYTES = 64 * 1024

export async function* joinedParts(source: AsyncIterator<Buffer>, maxBytes = JOINED_BYTES): AsyncGenerator<Buffer> {
  let ahead: Promise<IteratorResult<Buffer>> | undefined
  try {
    for (;;) {
      const first = await (ahead ?? source.next())
      ahead = undefined
      if (first.done) return
      const parts = [first.value]
      let size = first.value.length
      let ended = false
      const turn = endOfTurn()
      while (size < maxBytes) {
        const read = source.next()
        const ready = await Promise.race([read, turn])
        if (ready === TURN) {
          ahead = read
          break
        }
        if (ready.done) {
          ended = true
          break
        }
        parts.push(ready.value)
        size += ready.value.length
      }
      yield parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)
      if (ended) return
    }
  } finally {
    // A read still ahead when the response stops (the client left): its failure is nobody's to report.
    ahead?.catch(() => {})
    await source.return?.()
  }
}
