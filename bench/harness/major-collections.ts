/** V8's major (mark-compact) collections in this process, counted from Node's `gc` performance entries. */
import { constants, PerformanceObserver } from 'node:perf_hooks'

/** Starts counting; the function returns the count so far. */
export function countMajorCollections(): () => number {
  let count = 0
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) count++
  }).observe({ entryTypes: ['gc'] })
  return () => count
}
