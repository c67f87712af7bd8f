/**
 * The contract between the text layer and the engine.
 *
 * The text layer turns a transcript (with the SPEC's markup) into a SpeechPlan: the words of the
 * transcript as the user wrote them, and an ordered list of chunks, each a list of pieces the
 * native backends can speak. Every spoken stretch of a piece points back at a source word, so
 * word timings reported by the backends map onto the original transcript.
 */

/** The 15 languages of svc_flash_v1.0, as two-letter codes. */
export const LANGUAGES = [
  'en', 'es', 'fr', 'de', 'it', 'pt', 'ar', 'ru', 'ro', 'ja', 'he', 'hy', 'tr', 'hi', 'zh',
] as const
export type Language = (typeof LANGUAGES)[number]

/** The builtin synthesis backends. Each takes its own phoneme alphabet in phoneme pieces. */
export type BackendKind = 'espeak' | 'flite'

/** What a plan is made for: a builtin backend, or a neural model (Piper, Kokoro), which takes IPA and maps it to its ids. */
export type PlanBackend = BackendKind | 'neural'

/** A word of the transcript as sent, markup removed. Offsets are UTF-16 indices into the transcript. */
export interface SourceWord {
  text: string
  start: number
  end: number
}

/**
 * Maps a stretch of a text piece's spoken text to the source word it speaks.
 * Offsets count Unicode code points (not UTF-16 units) within `TextPiece.text`,
 * because that is what the native backends report.
 */
export interface WordSpan {
  start: number
  end: number
  word: number
}

/** Text for the backend to speak: already normalised and converted to a script it reads. */
export interface TextPiece {
  kind: 'text'
  text: string
  spans: WordSpan[]
  /**
   * espeak-ng only: the espeak voice (language) to read this piece with, when it differs from the
   * request's (pinyin is read by `cmn-latn-pinyin`, a Latin word inside Chinese by `en`).
   */
  espeakVoice?: string
}

/**
 * A pronunciation given by the user, already converted from IPA to the backend's alphabet:
 * espeak-ng's ASCII phoneme mnemonics (Kirshenbaum) or flite's CMU phones with 0/1 stress.
 * The whole piece is one source word.
 */
export interface PhonemePiece {
  kind: 'phonemes'
  phonemes: string
  word: number
  espeakVoice?: string
}

/** Exact digital silence, in milliseconds (already clamped and rounded by the text layer). */
export interface BreakPiece {
  kind: 'break'
  ms: number
}

export type Piece = TextPiece | PhonemePiece | BreakPiece

/**
 * How SSML asks a stretch of speech to sound (`<voice>`, `<lang>`, `<prosody>`, `<emphasis>`):
 * each field present changes the request's. A chunk has one rendering; the engine speaks each
 * rendering on a native stream of its own.
 */
export interface Rendering {
  /** A voice of the library, by id or a predefined voice's name. */
  voice?: string
  language?: Language
  /** Multiplies the speaking rate. */
  rate?: number
  /** Multiplies the voice's pitch. */
  pitch?: number
  /** Multiplies the amplitude (0 is silence). */
  volume?: number
}

export interface Chunk {
  pieces: Piece[]
  /** SSML's rendering of the whole chunk; absent: the request's voice, language and prosody. */
  rendering?: Rendering
  /**
   * The chunk was cut mid-clause (between words, to start audio early or bound its size): the
   * backend's edge silence at that cut is trimmed so the speech runs on into the next chunk.
   */
  continues?: boolean
}

/** An SSML `<mark>`: reached when the word at index `word` of SpeechPlan.words starts (or at the end, past the last word). */
export interface PlannedMark {
  name: string
  word: number
}

export interface SpeechPlan {
  words: SourceWord[]
  chunks: Chunk[]
  /** SSML marks, in order; absent when there are none. */
  marks?: PlannedMark[]
}

export interface PlanOptions {
  language: Language
  backend: PlanBackend
  /** Stops planning (Japanese tokenization) early; planSpeech then throws ABORTED or the signal's TtsError. */
  signal?: AbortSignal
  /** The languages an SSML `<lang>` may switch to (the model's); default: only `language`. */
  languages?: readonly Language[]
  /** An SSML element this engine does not know: an INVALID_MARKUP error (default), or its text read as if it were not there. */
  unknownElements?: 'error' | 'text'
}
