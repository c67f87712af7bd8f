/** Closed-loop load: clients that each send their next request once the last one's audio is read. */
import type { Engine } from '../../lib/index.js'

/** Audio seconds a second over `seconds` of `clients` closed loops, each starting its next request once the last one's audio is read; and how many requests. */
export async function closedLoop(clients: number, seconds: number, once: () => Promise<number>, bytesPerSecond: number): Promise<{ rate: number; requests: number }> {
  const started = performance.now()
  const ends = started + seconds * 1000
  let bytes = 0
  let requests = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < ends) {
      const made = await once()  // awaited first: `bytes += await` would add to the total read before the wait
      bytes += made
      requests++
    }
  }))
  return { rate: bytes / bytesPerSecond / ((performance.now() - started) / 1000), requests }
}

/** One request to `engine.stream()`, its audio read to the end: the bytes it made. */
export function streamedBytes<Model extends string>(engine: Engine<Model>, body: Parameters<Engine<Model>['stream']>[0]): () => Promise<number> {
  return async () => {
    let bytes = 0
    for await (const part of engine.stream(body)) bytes += part.length
    return bytes
  }
}
