/**
 * Turns the backends' word events into timings of the transcript's own words.
 * A word's time spans every event of its spoken expansion ("$3.50" covers "three dollars fifty
 * cents"); a phoneme override is one word spanning its whole piece.
 */
import type { NativeChunk } from './native.js'
import type { Chunk, SourceWord, TextPiece } from './text/types.js'

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

function spanWord(piece: TextPiece, char: number): number | undefined {
  let best: number | undefined
  for (const span of piece.spans) {
    if (span.start <= char && char < span.end) return span.word
    if (span.start <= char) best = span.word  // a position between spans belongs to the word before
  }
  return best ?? piece.spans[0]?.word
}

function lastWordOf(chunk: Chunk): number {
  let last = -1
  for (const piece of chunk.pieces) {
    if (piece.kind === 'text') for (const span of piece.spans) last = Math.max(last, span.word)
    else if (piece.kind === 'phonemes') last = Math.max(last, piece.word)
  }
  return last
}

export class AlignmentBuilder {
  /** Words are numbered in transcript order and chunks are contiguous, so each chunk owns a range. */
  private nextWord = 0
  private lastStartMs = 0
  private lastEndMs = 0

  /** `words` may grow as more text is planned (a speech session). */
  constructor(
    private readonly words: readonly SourceWord[],
    private readonly sampleRate: number,
  ) {}

  /**
   * Times the words of `chunk` from its last stretch of audio; the chunk begins `offsetSamples`
   * into the stream. With
   * `throughWord`, every word up to that index not yet timed belongs to this chunk too.
   */
  addChunk(chunk: Chunk, audio: NativeChunk, offsetSamples: number, throughWord?: number): TimedWord[] {
    const ranges = new Map<number, [number, number]>()
    const extend = (word: number, start: number, end: number) => {
      const range = ranges.get(word)
      if (range) ranges.set(word, [Math.min(range[0], start), Math.max(range[1], end)])
      else ranges.set(word, [start, end])
    }
    chunk.pieces.forEach((piece, index) => {
      if (piece.kind === 'phonemes') extend(piece.word, audio.pieceStarts[index] ?? 0, audio.pieceStarts[index + 1] ?? audio.chunkSamples)
    })
    for (const event of audio.words) {
      const piece = chunk.pieces[event.piece]
      if (piece?.kind !== 'text') continue
      const word = spanWord(piece, event.char)
      if (word !== undefined) extend(word, event.start, event.end)
    }

    const toMs = (samples: number) => Math.round(((offsetSamples + samples) * 1000) / this.sampleRate)
    const added: TimedWord[] = []
    // Words the backend never hears (a currency sign whose amount says it) still belong here.
    const through = throughWord ?? lastWordOf(chunk)
    for (let index = this.nextWord; index <= through; index++) {
      const range = ranges.get(index)
      // Times never run backwards; a word the backend did not voice gets a zero-length slot.
      const startMs = Math.max(range ? toMs(range[0]) : this.lastEndMs, this.lastStartMs)
      const endMs = Math.max(range ? toMs(range[1]) : startMs, startMs)
      this.lastStartMs = startMs
      this.lastEndMs = endMs
      const word: TimedWord = { index, text: this.words[index]?.text ?? '', startMs, endMs }
      added.push(word)
    }
    this.nextWord = Math.max(this.nextWord, through + 1)
    return added
  }
}
