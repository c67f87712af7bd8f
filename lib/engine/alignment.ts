/**
 * Turns the backends' word events into timings of the transcript's own words.
 * A word's time spans every event of its spoken expansion ("$3.50" covers "three dollars fifty
 * cents"); a phoneme override is one word spanning its whole piece.
 */
import type { NativeChunk, NativeTextPosition } from '../native.js'
import type { Chunk, SourceWord, TextPiece } from '../text/types.js'

export interface TimedWord {
  /** Index into the plan's words. */
  index: number
  text: string
  startMs: number
  endMs: number
}

export interface Alignment {
  words: string[]
  word_start_times_milliseconds: number[]
  word_end_times_milliseconds: number[]
}

/** Timed words as the SPEC's alignment: the words, their starts and their ends, in three arrays. */
export function toAlignment(words: readonly TimedWord[]): Alignment {
  return {
    words: words.map((w) => w.text),
    word_start_times_milliseconds: words.map((w) => w.startMs),
    word_end_times_milliseconds: words.map((w) => w.endMs),
  }
}

function spanWord(piece: TextPiece, char: number): number | undefined {
  let best: number | undefined
  for (const span of piece.spans) {
    if (span.start <= char && char < span.end) return span.word
    if (span.start <= char) best = span.word  // a position between spans belongs to the word before
  }
  return best ?? piece.spans[0]?.word
}

/**
 * The last word of `chunk` whose events have all come once the backend's events before `reached`
 * have: a text word once the next word's span begins at or before it (an event between two spans
 * belongs to the word before), any word once its piece is behind it.
 */
function lastWordBefore(chunk: Chunk, reached: NativeTextPosition): number {
  let last = -1
  chunk.pieces.forEach((piece, index) => {
    if (index > reached.piece) return
    if (index < reached.piece) {
      if (piece.kind === 'text') for (const span of piece.spans) last = Math.max(last, span.word)
      else if (piece.kind === 'phonemes') last = Math.max(last, piece.word)
      return
    }
    if (piece.kind !== 'text') return
    piece.spans.forEach((span, i) => {
      const next = piece.spans[i + 1]
      if (next && next.start <= reached.char) last = Math.max(last, span.word)
    })
  })
  return last
}

/** The last word of `chunk`: every piece behind. */
function lastWordOf(chunk: Chunk): number {
  return lastWordBefore(chunk, { piece: chunk.pieces.length, char: 0 })
}

export class AlignmentBuilder {
  /** Words are numbered in transcript order and chunks are contiguous, so each chunk owns a range. */
  private nextWord = 0
  private lastStartMs = 0
  private lastEndMs = 0
  /** The chunk being read: the sample range of each of its words heard so far. */
  private readonly ranges = new Map<number, [number, number]>()

  /** `words` may grow as more text is planned (a speech session). */
  constructor(
    private readonly words: readonly SourceWord[],
    private readonly sampleRate: number,
  ) {}

  /**
   * Adds a stretch of `chunk`, which begins `offsetSamples` into the stream, and returns the
   * words now timed: those whose events have all come, and at the chunk's end (`end`) all of its
   * words, through `end.throughWord` when given.
   */
  add(chunk: Chunk, stretch: Pick<NativeChunk, 'words' | 'reached'>, offsetSamples: number, end?: { throughWord?: number }): TimedWord[] {
    for (const event of stretch.words) {
      const piece = chunk.pieces[event.piece]
      const word = piece?.kind === 'phonemes' ? piece.word : piece?.kind === 'text' ? spanWord(piece, event.char) : undefined
      if (word === undefined) continue
      const range = this.ranges.get(word)
      this.ranges.set(word, range ? [Math.min(range[0], event.start), Math.max(range[1], event.end)] : [event.start, event.end])
    }
    // Words the backend never hears (a currency sign whose amount says it) still belong here.
    const through = end ? (end.throughWord ?? lastWordOf(chunk)) : lastWordBefore(chunk, stretch.reached)
    const timed = this.time(through, offsetSamples)
    if (end) this.ranges.clear()
    return timed
  }

  /** A chunk planned but not spoken (a resumed job's): its words are not timed. */
  skip(chunk: Chunk): void {
    this.nextWord = Math.max(this.nextWord, lastWordOf(chunk) + 1)
  }

  private time(through: number, offsetSamples: number): TimedWord[] {
    const toMs = (samples: number) => Math.round(((offsetSamples + samples) * 1000) / this.sampleRate)
    const timed: TimedWord[] = []
    for (let index = this.nextWord; index <= through; index++) {
      const range = this.ranges.get(index)
      this.ranges.delete(index)
      // Times never run backwards; a word the backend did not voice gets a zero-length slot.
      const startMs = Math.max(range ? toMs(range[0]) : this.lastEndMs, this.lastStartMs)
      const endMs = Math.max(range ? toMs(range[1]) : startMs, startMs)
      this.lastStartMs = startMs
      this.lastEndMs = endMs
      timed.push({ index, text: this.words[index]?.text ?? '', startMs, endMs })
    }
    this.nextWord = Math.max(this.nextWord, through + 1)
    return timed
  }
}
