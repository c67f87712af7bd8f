/** A cloned voice as the stores' tables hold it (SQLite, PostgreSQL), and what both refuse of a predefined voice. */
import { TtsError } from '../errors.js'
import type { Language } from '../text/types.js'
import type { StoredVoice } from './types.js'

export interface VoiceRow {
  voice_id: string
  name: string
  description: string
  language: string
  gender: string
  created_at: string
  updated_at: string
  /** JSON VoiceRendering. */
  rendering: string
  /** JSON VoiceAnalysis. */
  analysis: string
}

export function voiceFromRow(row: VoiceRow): StoredVoice {
  return {
    record: {
      voice_id: row.voice_id,
      voice_type: 'CUSTOM',
      name: row.name,
      description: row.description,
      created_at: row.created_at,
      updated_at: row.updated_at,
      language: row.language as Language,
      gender: row.gender as 'Male' | 'Female',
    },
    rendering: JSON.parse(row.rendering) as StoredVoice['rendering'],
    analysis: JSON.parse(row.analysis) as StoredVoice['analysis'],
  }
}

export function readOnly(voice: StoredVoice): TtsError {
  return new TtsError('VOICE_READ_ONLY', `voice '${voice.record.name}' is predefined: it cannot be changed or deleted`)
}
