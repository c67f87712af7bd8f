/**
 * svc-tts's voices as ElevenLabs' voice objects, and a few of ElevenLabs' premade voice ids that
 * clients hard-code (LiveKit's default among them) as svc-tts voices (the dialect's `voices` option
 * extends or overrides the table).
 */
import { PREDEFINED_VOICES } from '../../../voices/predefined.js'
import type { VoiceRecord } from '../../../voices/types.js'

function predefined(name: string): string {
  return PREDEFINED_VOICES.find((voice) => voice.record.name === name)!.record.voice_id
}

export const DEFAULT_VOICE_MAP: Readonly<Record<string, string>> = {
  '21m00Tcm4TlvDq8ikWAM': predefined('Sarah'),  // Rachel
  EXAVITQu4vr4xnSDxMaL: predefined('Sarah'),  // Sarah
  bIHbv24MWmeRgasZH58o: predefined('Richard'),  // Will (LiveKit's default)
  pNInz6obpgDQGcFmaJgB: predefined('Richard'),  // Adam
  JBFqnCBsd6RMkjVDRZzb: predefined('Alan'),  // George
}

export type VoiceMap = Readonly<Record<string, string>>

export function svcVoiceId(voices: VoiceMap, voiceId: string): string {
  return Object.hasOwn(voices, voiceId) ? voices[voiceId]! : voiceId
}

/** ElevenLabs' defaults, reported as the voice's settings: svc-tts takes only `speed` of them. */
const SETTINGS = { stability: 0.5, similarity_boost: 0.75, style: 0, use_speaker_boost: true, speed: 1 }

export function voiceObject(voice: VoiceRecord): Record<string, unknown> {
  return {
    voice_id: voice.voice_id,
    name: voice.name,
    category: voice.voice_type === 'CUSTOM' ? 'cloned' : 'premade',
    labels: { language: voice.language, gender: voice.gender.toLowerCase() },
    description: voice.description,
    preview_url: null,
    available_for_tiers: [],
    settings: SETTINGS,
    created_at_unix: Math.floor(Date.parse(voice.created_at) / 1000) || null,
  }
}
