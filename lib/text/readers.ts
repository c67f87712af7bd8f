/**
 * A reader turns the text of one language into speech units: it finds the source words, and
 * produces what the backend should read for each (normalised, in a script the backend reads).
 */
import { toAscii } from './ascii.js'
import { normaliserFor } from './normalise/index.js'
import type { Segment, TextSegment } from './parser.js'
import { hasSpeakableChars, tokenize } from './tokens.js'
import type { PlanOptions } from './types.js'
import type { SpeechUnit, Unit } from './units.js'

/** Records a source word by its transcript span and returns its index in SpeechPlan.words. */
export type WordCollector = (start: number, end: number) => number

export interface TokenReader {
  readText(segment: TextSegment, addWord: WordCollector): Unit[]
  /** One digit group of a digits tag, already recorded as `word`. */
  readDigits(digits: string, word: number): SpeechUnit
}

/** Readers for scripts that separate words with spaces (every language but zh and ja). */
function spacedReader(opts: PlanOptions): TokenReader {
  const normaliser = normaliserFor(opts.language)
  const forBackend = opts.backend === 'flite' ? toAscii : (text: string) => text
  return {
    readText(segment, addWord) {
      const units: Unit[] = []
      for (const token of tokenize(segment, normaliser.isAbbreviation)) {
        const word = hasSpeakableChars(token.text) ? addWord(token.start, token.end) : null
        const text = forBackend(normaliser.normaliseToken(token.text))
        if (text !== '') units.push({ kind: 'speech', text, word, pause: token.pause })
      }
      return units
    },
    readDigits(digits, word) {
      const text = forBackend(Array.from(digits, normaliser.speakDigit).join(' '))
      return { kind: 'speech', text, word, pause: 'none' }
    },
  }
}

export async function createReader(opts: PlanOptions, _segments: Segment[]): Promise<TokenReader> {
  return spacedReader(opts)
}
