/** Number formatting shared by the report's tables and its reading of the results. */

/** Milliseconds with the precision the figure deserves. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a'
  if (value < 0.1) return `${(value * 1000).toFixed(2)} µs`
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ms`
}

/** A real-time factor to three significant digits (0.00174). */
export function rtf(value: number): string {
  return Number.isFinite(value) ? value.toPrecision(3) : 'n/a'
}

export function mib(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${value.toFixed(1)} MiB`
}

export function seconds(value: number): string {
  return `${value.toFixed(1)} s`
}

export function times(ratio: number): string {
  return `${ratio.toFixed(2)}×`
}
