/**
 * The atoms between planning and chunking. A unit is never split: one source word's whole spoken
 * expansion, one phoneme word, or one break. The chunker only cuts between units.
 */
import type { Rendering } from './types.js'

/** The prosodic boundary after a unit, from the punctuation the user wrote. */
export type Pause = 'none' | 'clause' | 'sentence'

export interface SpeechUnit extends Rendered {
  kind: 'speech'
  /** What the backend reads; may be several spoken words ("three dollars fifty cents"). */
  text: string
  /** Index into SpeechPlan.words, or null for punctuation that only shapes prosody. */
  word: number | null
  espeakVoice?: string
  pause: Pause
  /** Keeps the chunker from cutting after this unit (inside a digits tag, for one). */
  bindNext?: boolean
}

export interface PhonemeUnit extends Rendered {
  kind: 'phonemes'
  phonemes: string
  word: number
  espeakVoice?: string
  pause: Pause
  bindNext?: boolean
}

export interface BreakUnit extends Rendered {
  kind: 'break'
  ms: number
}

/** SSML's rendering of the unit's segment: the chunker keeps units of one rendering in a chunk. */
interface Rendered {
  rendering?: Rendering
}

export type Unit = SpeechUnit | PhonemeUnit | BreakUnit
