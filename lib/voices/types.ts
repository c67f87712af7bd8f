import type { Language } from '../text/types.js'
import type { Gender, ListVoicesOptions, VoicePatch, VoiceType } from './schemas.js'

export type { CloneVoiceFields, Gender, ListVoicesOptions, VoicePatch, VoiceType } from './schemas.js'

/** A voice as the SPEC's voice record shows it. */
export interface VoiceRecord {
  voice_id: string
  voice_type: VoiceType
  name: string
  description: string
  created_at: string
  updated_at: string
  language: Language
  /** 'Unknown' where a model pack does not say (a Piper voice's speakers). */
  gender: Gender | 'Unknown'
}

/** What the native pool applies to a backend's audio after synthesis (cloned voices only). */
export interface VoiceTransform {
  /** Multiplies the pitch the backend could not reach itself. */
  pitchScale: number
  /** Scales the spectral envelope (formants): above 1 is a shorter vocal tract. */
  formantScale: number
}

/** How each builtin backend renders a voice. */
export interface VoiceRendering {
  /** espeak-ng variant appended to the language voice ("+f3"), so one voice can speak any language. */
  espeakVariant: string
  /** flite voice name (slt, rms, awb, kal16); English voices only. */
  flite?: string
  /** Multiplies the rate and the base pitch. */
  speed: number
  pitch: number
  /** Cloned voices: fitted per backend, overriding speed and pitch. */
  tuning?: Record<'espeak' | 'flite', BackendTuning>
}

/** A cloned voice on one backend: the backend's own controls first, the transform for the rest. */
export interface BackendTuning {
  speed: number
  pitch: number
  transform: VoiceTransform
}

/** The measures of speech the native analysis reports (lib/voices/analysis.ts). */
export interface VoiceAnalysis {
  /** Median f0 of voiced frames, Hz. */
  pitchHz: number
  /** p10..p90 of f0, in semitones. */
  pitchRangeSemitones: number
  /** Formant spacing against a 17.5 cm vocal tract (1000 Hz): above 1 is a shorter tract. */
  formantScale: number
  /** Detected onsets (about syllables) a second of speech. */
  syllablesPerSecond: number
  /** RMS level of the speech, dBFS. */
  loudnessDb: number
  /** Seconds of speech after trimming silence. */
  speechSeconds: number
}

export interface StoredVoice {
  record: VoiceRecord
  rendering: VoiceRendering
  analysis?: VoiceAnalysis
}

/** The uploaded recording a cloned voice was made from, kept so it can be analysed again. */
export interface VoiceSample {
  audio: Buffer
  mediaType: string
}

export interface VoicePage {
  voices: VoiceRecord[]
  /** Opaque: pass it as `cursor` for the next page. Null on the last page. */
  next_cursor: string | null
}

export interface NewVoice {
  /** Who made the voice (an API key's id): what its quota counts against. */
  owner?: string
  name: string
  description: string
  language: Language
  gender: Gender
  rendering: VoiceRendering
  analysis: VoiceAnalysis
  sample: VoiceSample
}

/** What one owner may store: cloned voices, and the bytes of their samples. */
export interface VoiceQuota {
  voices: number
  sampleBytes: number
}

export interface VoiceUsage {
  voices: number
  sampleBytes: number
}

/**
 * Where voices live. The predefined voices are always present and read-only (update and delete
 * throw VOICE_READ_ONLY); cloned voices are created, changed and deleted here.
 */
export interface VoiceStore {
  list(options?: ListVoicesOptions): Promise<VoicePage>
  get(voiceId: string): Promise<StoredVoice | undefined>
  /** The voices found, in the order asked; unknown ids are left out. */
  getMany(voiceIds: readonly string[]): Promise<StoredVoice[]>
  /** With `quota`, refuses a voice that takes its owner past it (VOICE_QUOTA_EXCEEDED); a store may ignore quotas. */
  create(voice: NewVoice, quota?: VoiceQuota): Promise<StoredVoice>
  /** What an owner's voices take, for quotas; a store without it does not enforce them. */
  usage?(owner: string): Promise<VoiceUsage>
  /** Undefined when no voice has that id. */
  update(voiceId: string, patch: VoicePatch): Promise<StoredVoice | undefined>
  /** False when no voice has that id. */
  delete(voiceId: string): Promise<boolean>
  sample(voiceId: string): Promise<VoiceSample | undefined>
  close(): Promise<void>
}
