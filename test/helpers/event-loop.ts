/** Measures how late a 5 ms timer fires while `work` runs: the event loop's worst stall, in ms. */
export async function worstEventLoopLag<T>(work: () => Promise<T>): Promise<{ result: T; worstLagMs: number }> {
  let worstLagMs = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    worstLagMs = Math.max(worstLagMs, now - last - 5)
    last = now
  }, 5)
  try {
    return { result: await work(), worstLagMs }
  } finally {
    clearInterval(timer)
  }
}
