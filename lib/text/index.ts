/**
 * The text layer: markup parsing, normalisation, script conversion and chunking for the engine.
 */
export { planSpeech, SpeechPlanner, type PlannerOptions } from './plan.js'
export { Lexicon, type LexiconRule } from './lexicon.js'
export { parseMarkup } from './parser.js'
export type { Segment, TextSegment, PhonemesSegment, BreakSegment, DigitsSegment, DigitGroup, IpaWord, SourceSpan } from './parser.js'
export { ipaWordToPhonemes, ipaToEspeak, ipaToFlite, type BackendPhonemes } from './ipa/index.js'
export { MAX_BREAK_MS, clampBreakMs, parseBreakDuration } from './breaks.js'
export { toAscii } from './ascii.js'
export * from './types.js'
