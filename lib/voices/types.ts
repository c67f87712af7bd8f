import type { Language } from '../text/types.js'

/** A voice as the SPEC's voice record shows it. */
export interface VoiceRecord {
  voice_id: string
  voice_type: 'PREDEFINED' | 'CUSTOM'
  name: string
  description: string
  created_at: string
  updated_at: string
  language: Language
  /** 'Unknown' where a model pack does not say (a Piper voice's speakers). */
  gender: 'Male' | 'Female' | 'Unknown'
}

/** How each builtin backend renders a voice. */
export interface VoiceRendering {
  /** espeak-ng variant appended to the language voice ("+f3"), so one voice can speak any language. */
  espeakVariant: string
  /** flite voice name (slt, rms, awb, kal16); English voices only. */
  flite?: string
  /** Multiplies the rate and the base pitch (cloned voices set these). */
  speed: number
  pitch: number
}

export interface StoredVoice {
  record: VoiceRecord
  rendering: VoiceRendering
}

export interface VoicePage {
  voices: VoiceRecord[]
  /** The id of the last voice of this page: pass it as `cursor` for the next page. Null on the last page. */
  next_cursor: string | null
}

export interface ListVoicesOptions {
  limit?: number
  cursor?: string
}

/**
 * Where voices live. The predefined voices are always present; a persistent store for cloned
 * voices implements the same interface.
 */
export interface VoiceStore {
  list(options?: ListVoicesOptions): Promise<VoicePage>
  get(voiceId: string): Promise<StoredVoice | undefined>
}
