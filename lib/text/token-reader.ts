/**
 * The interface every language's reader implements (readers.ts picks one per request; ja.ts and
 * zh.ts implement it), kept apart so that no reader imports the module that chooses it.
 */
import type { TextSegment } from './parser.js'
import type { SpeechUnit, Unit } from './units.js'

/** Records a source word by its transcript span and returns its index in SpeechPlan.words. */
export type WordCollector = (start: number, end: number) => number

export interface TokenReader {
  readText(segment: TextSegment, addWord: WordCollector): Unit[]
  /** One digit group of a digits tag, already recorded as `word`. */
  readDigits(digits: string, word: number): SpeechUnit
}
