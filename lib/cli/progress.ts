/**
 * What `say` tells the person at the terminal: a progress bar while a long text is spoken (only
 * when stderr is a terminal), and one summary line at the end.
 */
import type { TimedWord } from '../engine/alignment.js'

/** Texts shorter than this are spoken too fast for a bar to be worth drawing. */
export const LONG_TEXT_CHARS = 200
const REDRAW_MS = 100

export interface ProgressState {
  /** Share of the text spoken, 0 to 1; unknown while stdin is still arriving. */
  fraction: number | undefined
  audioSeconds: number
  elapsedMs: number
}

/** One line that fits `columns`: `[=====>     ]  42%  12.3 s of audio  1.4 s`. */
export function renderProgress(state: ProgressState, columns: number): string {
  const figures = `${(state.audioSeconds).toFixed(1)} s of audio  ${(state.elapsedMs / 1000).toFixed(1)} s`
  if (state.fraction === undefined) return figures.slice(0, columns - 1)
  const fraction = Math.min(1, Math.max(0, state.fraction))
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
  const barWidth = Math.min(40, columns - 1 - figures.length - percent.length - 6)
  if (barWidth < 10) return `${percent}  ${figures}`.slice(0, columns - 1)
  const filled = Math.round(fraction * barWidth)
  const bar = '='.repeat(Math.max(0, filled - 1)) + (filled > 0 ? (filled === barWidth ? '=' : '>') : '') + ' '.repeat(barWidth - filled)
  return `[${bar}] ${percent}  ${figures}`
}

/**
 * How far into the text the speech is: each spoken word is found in the text after the previous
 * one (the engine's words are the transcript's own), so markup and spaces count as passed.
 */
export class TextPosition {
  private text = ''
  private position = 0
  /** Whether all the text is in (stdin has ended): only then is the share spoken known. */
  completed = false

  append(text: string): void {
    this.text += text
  }

  complete(): void {
    this.completed = true
  }

  get length(): number {
    return this.text.length
  }

  /** Whether anything but white space was written. */
  get hasText(): boolean {
    return /\S/.test(this.text)
  }

  advance(words: readonly TimedWord[]): number {
    for (const word of words) {
      const at = this.text.indexOf(word.text, this.position)
      if (at >= 0) this.position = at + word.text.length
    }
    return this.position
  }
}

/** Redraws a bar on a terminal's line, at most every REDRAW_MS; `clear` leaves the line empty. */
export class ProgressBar {
  private lastDraw = -Infinity
  private drawn = false

  constructor(private readonly terminal: NodeJS.WriteStream) {}

  update(state: ProgressState): void {
    if (state.elapsedMs - this.lastDraw < REDRAW_MS) return
    this.lastDraw = state.elapsedMs
    this.terminal.write(`\r${renderProgress(state, this.terminal.columns || 80)}\x1b[K`)
    this.drawn = true
  }

  clear(): void {
    if (this.drawn) this.terminal.write('\r\x1b[K')
    this.drawn = false
  }
}

/** `12.34 s of audio in 0.84 s (real-time factor 0.068): hello.wav 541.2 kB`. */
export function summaryLine(result: { audioSeconds: number; wallMs: number; outputs: readonly string[] }): string {
  const wall = result.wallMs / 1000
  const factor = result.audioSeconds > 0 ? (wall / result.audioSeconds).toFixed(3) : 'n/a'
  return `${result.audioSeconds.toFixed(2)} s of audio in ${wall.toFixed(2)} s (real-time factor ${factor}): ${result.outputs.join(', ')}`
}
