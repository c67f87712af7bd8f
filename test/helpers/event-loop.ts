import { watchStalls } from './stall.js'

/** The event loop's worst stall while `work` runs, in ms (time spent waiting for a CPU excluded: see stall.ts). */
export async function worstEventLoopLag<T>(work: () => Promise<T>): Promise<{ result: T; worstLagMs: number }> {
  const watch = watchStalls()
  try {
    const result = await work()
    return { result, worstLagMs: watch.worstMs() }
  } finally {
    watch.stop()
  }
}
