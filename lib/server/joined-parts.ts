/**
 * A response's parts after its first, joined into fewer, larger writes: each write on a response
 * costs the main thread a chunk frame and a system call, whatever its size. The parts the source
 * has ready within one turn of the event loop go out together, up to a bound; a part that is not
 * ready yet is not waited for, unless the client already holds audio enough to play meanwhile.
 * Reading stays pull-based: one read ahead at most, so what is held is bounded by `maxBytes` and
 * one part.
 */
const TURN = Symbol('turn')

/** Settles in the event loop's check phase, after the reads ready now (settled in microtasks) have settled. */
const endOfTurn = () => new Promise<typeof TURN>((resolve) => setImmediate(resolve, TURN))

export const JOINED_BYTES = 256 * 1024

/**
 * The audio a client keeps in hand while its next parts are held: it plays from its first byte, so
 * what it was sent beyond the time since then is what it can play while it waits.
 */
export const AHEAD_MARGIN_MS = 200
/** The longest a part is held for the parts after it. */
export const MAX_HOLD_MS = 50

export interface JoinOptions {
  maxBytes?: number
  /** Bytes a second of the audio the parts carry (raw PCM or WAV); without it, parts are never held past their turn. */
  bytesPerSecond?: number
  /** Bytes of that audio the client was sent before these parts, and when it got the first of them (performance.now()). */
  sent?: { bytes: number; since: number }
}

export async function* joinedParts(source: AsyncIterator<Buffer>, options: JoinOptions = {}): AsyncGenerator<Buffer> {
  const { maxBytes = JOINED_BYTES, bytesPerSecond } = options
  let sentBytes = options.sent?.bytes ?? 0
  let since = options.sent?.since
  let ahead: Promise<IteratorResult<Buffer>> | undefined
  try {
    for (;;) {
      const first = await (ahead ?? source.next())
      ahead = undefined
      if (first.done) return
      const parts = [first.value]
      let size = first.value.length
      let ended = false
      const held = since === undefined || bytesPerSecond === undefined
        ? 0
        : Math.floor(Math.min(MAX_HOLD_MS, (sentBytes * 1000) / bytesPerSecond - (performance.now() - since) - AHEAD_MARGIN_MS))
      let timer: NodeJS.Timeout | undefined
      const turn = held > 0 ? new Promise<typeof TURN>((resolve) => (timer = setTimeout(resolve, held, TURN))) : endOfTurn()
      try {
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
      } finally {
        clearTimeout(timer)
      }
      since ??= performance.now()
      sentBytes += size
      yield parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)
      if (ended) return
    }
  } finally {
    // A read still ahead when the response stops (the client left): its failure is nobody's to report.
    ahead?.catch(() => {})
    await source.return?.()
  }
}
