/** Order statistics for the small samples the harness collects (tens of runs, not millions). */

/** The q-quantile (0..1) by linear interpolation between the closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = (sorted.length - 1) * q
  const below = Math.floor(rank)
  const above = Math.min(below + 1, sorted.length - 1)
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (rank - below)
}

export const median = (values: readonly number[]): number => quantile(values, 0.5)

/** The run whose `key` is the median one, so every figure reported for it comes from the same run. */
export function medianRun<T>(runs: readonly T[], key: (run: T) => number): T {
  const sorted = [...runs].sort((a, b) => key(a) - key(b))
  const middle = sorted[Math.floor((sorted.length - 1) / 2)]
  if (middle === undefined) throw new Error('medianRun needs at least one run')
  return middle
}

/** "median (p5-p95)", as the studies' tables print a figure over passes. */
export const spread = (values: readonly number[], digits = 0): string =>
  `${median(values).toFixed(digits)} (${quantile(values, 0.05).toFixed(digits)}-${quantile(values, 0.95).toFixed(digits)})`
