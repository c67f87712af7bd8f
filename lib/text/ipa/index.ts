/**
 * The phonemes tag: a user's IPA, checked and converted to the backend's own phoneme input.
 */
import type { IpaWord } from '../parser.js'
import type { Language, PlanBackend } from '../types.js'
import { ipaToEspeak } from './espeak.js'
import { ipaToFlite } from './flite.js'
import { assertIpa } from './validate.js'

/** The Mandarin phonemes are those of the pinyin voice, which the engine must then use. */
const PHONEME_VOICES: Partial<Record<Language, string>> = { zh: 'cmn-latn-pinyin' }

export interface BackendPhonemes {
  phonemes: string
  espeakVoice?: string
}

/** Converts one IPA word; throws INVALID_PHONEMES (with the offset) for non-IPA or unspeakable symbols. */
export function ipaWordToPhonemes(word: IpaWord, language: Language, backend: PlanBackend): BackendPhonemes {
  assertIpa(word)
  if (backend === 'flite') return { phonemes: ipaToFlite(word) }
  if (backend === 'neural') return { phonemes: word.ipa }  // the model maps IPA symbols to its own ids
  const espeakVoice = PHONEME_VOICES[language]
  return { phonemes: ipaToEspeak(word, language), ...(espeakVoice ? { espeakVoice } : {}) }
}

export { ipaToEspeak } from './espeak.js'
export { ipaToFlite } from './flite.js'
