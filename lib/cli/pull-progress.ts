/** What `models pull` tells the person at a terminal: one bar per pack, redrawn at most every 100 ms. */
import type { PullProgress } from '../neural/store/pull.js'

const REDRAW_MS = 100

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`
}

/** `en_US-lessac-medium [=======>      ]  52%  32.8 MB of 63.2 MB`, cut to `columns`. */
export function renderPull(progress: PullProgress, columns: number): string {
  const fraction = progress.size > 0 ? Math.min(1, progress.bytes / progress.size) : 0
  const figures = `${`${Math.floor(fraction * 100)}%`.padStart(4)}  ${megabytes(progress.bytes)} of ${megabytes(progress.size)}`
  const width = Math.min(30, columns - 1 - progress.name.length - figures.length - 4)
  if (width < 10) return `${progress.name} ${figures}`.slice(0, columns - 1)
  const filled = Math.round(fraction * width)
  const bar = '='.repeat(Math.max(0, filled - 1)) + (filled > 0 ? (filled === width ? '=' : '>') : '') + ' '.repeat(width - filled)
  return `${progress.name} [${bar}] ${figures}`
}

export class PullBar {
  private lastDraw = -Infinity
  private drawn = false

  constructor(private readonly terminal: NodeJS.WriteStream) {}

  update(progress: PullProgress): void {
    const now = performance.now()
    if (now - this.lastDraw < REDRAW_MS && progress.bytes < progress.size) return
    this.lastDraw = now
    this.terminal.write(`\r${renderPull(progress, this.terminal.columns || 80)}\x1b[K`)
    this.drawn = true
  }

  clear(): void {
    if (this.drawn) this.terminal.write('\r\x1b[K')
    this.drawn = false
  }
}
