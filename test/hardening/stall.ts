/**
 * The event loop's worst stall, as a 5 ms timer sees it, less the time the main thread spent
 * runnable but waiting for a CPU (Linux schedstat): on a shared, overloaded machine that wait is
 * the scheduler's, not ours. A main thread that is busy or blocked (a lock, a sync call) counts.
 */
import { readFileSync } from 'node:fs'

const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`
const PERIOD_MS = 5

/** Milliseconds the main thread has waited on a run queue so far (0 where Linux does not say). */
function runQueueWaitMs(): number {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]) / 1e6
  } catch {
    return 0
  }
}

export interface StallWatch {
  /** Starts measuring afresh. */
  reset(): void
  /** The worst stall since the last reset, in ms. */
  worstMs(): number
  stop(): void
}

export function watchStalls(): StallWatch {
  let worst = 0
  let lastTick = performance.now()
  let lastWait = runQueueWaitMs()
  const timer = setInterval(() => {
    const now = performance.now()
    const wait = runQueueWaitMs()
    worst = Math.max(worst, now - lastTick - PERIOD_MS - (wait - lastWait))
    lastTick = now
    lastWait = wait
  }, PERIOD_MS)
  return {
    reset() {
      worst = 0
      lastTick = performance.now()
      lastWait = runQueueWaitMs()
    },
    worstMs: () => worst,
    stop: () => clearInterval(timer),
  }
}
