/**
 * Break durations. The SPEC says 80–1200 ms works best and allows rounding tiny values and
 * clamping large ones; these are our documented limits (docs/markup-and-text.md).
 */

/** The longest silence one break (or a run of consecutive breaks) produces. */
export const MAX_BREAK_MS = 5000

/** A number (`1`, `0.5`, `.5`, `150`) directly followed by `ms` or `s`; spaces around are allowed. */
const DURATION = /^\s*(\d{1,12}(?:\.\d{0,12})?|\.\d{1,12})\s*(ms|s)\s*$/i

/** Rounds to whole milliseconds (below 1 ms is 0) and clamps to [0, MAX_BREAK_MS]. */
export function clampBreakMs(ms: number): number {
  if (!(ms >= 1)) return 0
  return Math.min(MAX_BREAK_MS, Math.round(ms))
}

/** Parses a break `time` value into clamped, rounded milliseconds, or null when it is not a duration. */
export function parseBreakDuration(value: string): number | null {
  const match = DURATION.exec(value)
  if (!match) return null
  const amount = Number(match[1])
  const unit = (match[2] ?? '').toLowerCase()
  return clampBreakMs(unit === 's' ? amount * 1000 : amount)
}
