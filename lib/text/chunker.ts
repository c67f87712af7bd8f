/**
 * Groups units into the chunks the engine synthesises, each spoken as one utterance. Cuts fall
 * only between units, so a tag or a normalised expansion is never split, and never in mid-clause
 * to start early: only a clause still longer than CHUNK_TARGET_CHARS is cut between words.
 *
 * How far a chunk reaches depends on the backend (ChunkShape):
 * - flite analyses its whole utterance before it makes audio, and gives it one prosody: a chunk
 *   is a sentence (one over CHUNK_TARGET_CHARS is cut at its clauses, keeping their pauses). The
 *   session's first sentence is the exception: when it is long, its first clause is a chunk of
 *   its own, since the listener waits for that utterance's analysis.
 * - A neural pack makes a chunk in one model run, whose memory and time grow with its length: a
 *   chunk is whole clauses up to a bound (clauseChars), a smaller one in the first sentence.
 * - espeak-ng analyses and speaks a clause at a time (its intonation is a clause's): a clause
 *   spoken alone is the same audio as within its sentence. A chunk is a clause, so one stream's
 *   chunk holds espeak-ng's single thread no longer than a clause, and a new stream waits less.
 */
import type { Chunk, Piece, TextPiece, WordSpan } from './types.js'
import type { Unit } from './units.js'

/** A sentence longer than this is cut at clause punctuation (or, failing that, between words). */
export const CHUNK_TARGET_CHARS = 200

function unitChars(unit: Unit): number {
  if (unit.kind === 'break') return 0
  return (unit.kind === 'speech' ? unit.text.length : unit.phonemes.length) + 1
}

function canCutAfter(unit: Unit): boolean {
  return unit.kind === 'break' || !unit.bindNext
}

function pauseOf(unit: Unit): 'none' | 'clause' | 'sentence' {
  return unit.kind === 'break' ? 'none' : unit.pause
}

/** Characters from each unit to the end of its sentence (or clause), to decide whether a clause cut is needed. */
function charsToEnd(units: Unit[], at: 'sentence' | 'clause'): number[] {
  const result = new Array<number>(units.length + 1).fill(0)
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i]!
    const pause = pauseOf(unit)
    const ends = pause === 'sentence' || (at === 'clause' && pause === 'clause')
    result[i] = unitChars(unit) + (ends ? 0 : result[i + 1]!)
  }
  return result
}

/**
 * Where a sentence's clauses become chunks of their own. `leadClauseAbove`: a sentence longer than
 * this many characters has its first clause cut off; `everyClause`: every clause is a chunk;
 * `clauseChars`: a chunk grows by whole clauses only while it stays within this many characters
 * (a longer clause stays whole).
 */
export interface ChunkShape {
  leadClauseAbove?: number
  everyClause?: boolean
  clauseChars?: number
}

function cutPoints(units: Unit[], shape: ChunkShape): number[] {
  if (units.length === 0) return []
  const cuts: number[] = []
  const toSentenceEnd = charsToEnd(units, 'sentence')
  const toClauseEnd = shape.clauseChars === undefined ? undefined : charsToEnd(units, 'clause')
  const restLimit = shape.everyClause ? 0 : CHUNK_TARGET_CHARS
  let chars = 0
  let clauseLimit = toSentenceEnd[0]! > (shape.leadClauseAbove ?? Infinity) ? 0 : restLimit
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!
    chars += unitChars(unit)
    if (!canCutAfter(unit) || i === units.length - 1) continue
    const pause = pauseOf(unit)
    const sentenceTooLong = chars + toSentenceEnd[i + 1]! > clauseLimit
    const clauseOverflows = toClauseEnd !== undefined && chars + toClauseEnd[i + 1]! > shape.clauseChars!
    const nextOverflows = chars + unitChars(units[i + 1]!) > CHUNK_TARGET_CHARS
    if (pause === 'sentence' || (pause === 'clause' && (sentenceTooLong || clauseOverflows)) || nextOverflows) {
      cuts.push(i)
      chars = 0
      clauseLimit = restLimit
    }
  }
  if (cuts[cuts.length - 1] !== units.length - 1) cuts.push(units.length - 1)
  return cuts
}

function codePoints(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

/** Merges consecutive speech units read by the same voice into one text piece with word spans. */
function toPieces(units: Unit[]): Piece[] {
  const pieces: Piece[] = []
  let open: TextPiece | null = null
  let openLength = 0
  for (const unit of units) {
    if (unit.kind !== 'speech') {
      open = null
      pieces.push(
        unit.kind === 'break'
          ? { kind: 'break', ms: unit.ms }
          : { kind: 'phonemes', phonemes: unit.phonemes, word: unit.word, ...(unit.espeakVoice ? { espeakVoice: unit.espeakVoice } : {}) },
      )
      continue
    }
    if (open === null || open.espeakVoice !== unit.espeakVoice) {
      open = { kind: 'text', text: '', spans: [], ...(unit.espeakVoice ? { espeakVoice: unit.espeakVoice } : {}) }
      openLength = 0
      pieces.push(open)
    } else {
      open.text += ' '
      openLength += 1
    }
    const length = codePoints(unit.text)
    if (unit.word !== null) {
      const span: WordSpan = { start: openLength, end: openLength + length, word: unit.word }
      open.spans.push(span)
    }
    open.text += unit.text
    openLength += length
  }
  return pieces
}

/**
 * Chunks one sentence's units whose SSML renderings may differ: each run of one rendering is
 * chunked on its own (a chunk is spoken in one voice and prosody), and a run that ends mid-clause
 * runs on into the next as a cut would.
 */
export function chunkRenderedUnits(units: Unit[], shape: ChunkShape = {}): Chunk[] {
  const chunks: Chunk[] = []
  let start = 0
  while (start < units.length) {
    const rendering = units[start]!.rendering
    let end = start + 1
    while (end < units.length && units[end]!.rendering === rendering) end++
    const run = chunkUnits(units.slice(start, end), shape)
    const last = units[end - 1]!
    if (end < units.length && last.kind !== 'break' && pauseOf(last) === 'none' && run.length > 0) run[run.length - 1]!.continues = true
    if (rendering) for (const chunk of run) chunk.rendering = rendering
    chunks.push(...run)
    start = end
  }
  return chunks
}

/** Chunks one sentence's units. */
export function chunkUnits(units: Unit[], shape: ChunkShape = {}): Chunk[] {
  const chunks: Chunk[] = []
  let start = 0
  for (const cut of cutPoints(units, shape)) {
    const last = units[cut]!
    const midClause = cut < units.length - 1 && last.kind !== 'break' && pauseOf(last) === 'none'
    chunks.push({ pieces: toPieces(units.slice(start, cut + 1)), ...(midClause && { continues: true }) })
    start = cut + 1
  }
  return chunks
}
