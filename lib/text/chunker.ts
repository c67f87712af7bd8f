/**
 * Groups units into the chunks the engine synthesises one after another. Chunk 0 is streamed
 * first, so it is kept small (the first clause, or the first few words of a long one) to cut
 * time to first audio; later chunks are about a sentence each. Cuts fall only between units, so a
 * tag or a normalised expansion is never split.
 */
import type { Chunk, Piece, TextPiece, WordSpan } from './types.js'
import type { Unit } from './units.js'

/** Chunk 0 is the whole first clause when it has at most this many words… */
export const FIRST_CHUNK_MAX_WORDS = 6
/** …and otherwise its first this-many words. */
export const FIRST_CHUNK_LONG_CLAUSE_WORDS = 5
/** Later chunks are cut at clause punctuation (or, failing that, between words) to stay near this. */
export const CHUNK_TARGET_CHARS = 200

function unitChars(unit: Unit): number {
  if (unit.kind === 'break') return 0
  return (unit.kind === 'speech' ? unit.text.length : unit.phonemes.length) + 1
}

function countsAsWord(unit: Unit): boolean {
  return unit.kind === 'phonemes' || (unit.kind === 'speech' && unit.word !== null)
}

function canCutAfter(unit: Unit): boolean {
  return unit.kind === 'break' || !unit.bindNext
}

function pauseOf(unit: Unit): 'none' | 'clause' | 'sentence' {
  return unit.kind === 'break' ? 'none' : unit.pause
}

/** Index after which chunk 0 ends. */
function firstCut(units: Unit[]): number {
  let words = 0
  let fallback = -1
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!
    if (countsAsWord(unit)) words++
    if (!canCutAfter(unit)) continue
    if (pauseOf(unit) !== 'none' && words <= FIRST_CHUNK_MAX_WORDS) return i
    if (words >= FIRST_CHUNK_LONG_CLAUSE_WORDS) {
      if (fallback < 0) fallback = i
      if (words > FIRST_CHUNK_MAX_WORDS) return fallback
    }
  }
  return units.length - 1
}

/** Characters from each unit to the end of its sentence, to decide whether a clause cut is needed. */
function charsToSentenceEnd(units: Unit[]): number[] {
  const result = new Array<number>(units.length + 1).fill(0)
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i]!
    result[i] = unitChars(unit) + (pauseOf(unit) === 'sentence' ? 0 : result[i + 1]!)
  }
  return result
}

function cutPoints(units: Unit[]): number[] {
  if (units.length === 0) return []
  const cuts = [firstCut(units)]
  const toSentenceEnd = charsToSentenceEnd(units)
  let chars = 0
  for (let i = cuts[0]! + 1; i < units.length; i++) {
    const unit = units[i]!
    chars += unitChars(unit)
    if (!canCutAfter(unit) || i === units.length - 1) continue
    const pause = pauseOf(unit)
    const sentenceTooLong = chars + toSentenceEnd[i + 1]! > CHUNK_TARGET_CHARS
    const nextOverflows = chars + unitChars(units[i + 1]!) > CHUNK_TARGET_CHARS
    if (pause === 'sentence' || (pause === 'clause' && sentenceTooLong) || nextOverflows) {
      cuts.push(i)
      chars = 0
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

export function chunkUnits(units: Unit[]): Chunk[] {
  const chunks: Chunk[] = []
  let start = 0
  for (const cut of cutPoints(units)) {
    const last = units[cut]!
    const midClause = cut < units.length - 1 && last.kind !== 'break' && pauseOf(last) === 'none'
    chunks.push({ pieces: toPieces(units.slice(start, cut + 1)), ...(midClause && { continues: true }) })
    start = cut + 1
  }
  return chunks
}
