/**
 * ElevenLabs' request bodies and what they ask of svc-tts. The body schema checks the dialect's own
 * wire shape (unknown fields pass, as ElevenLabs lets them); `speechRequest` turns it into the
 * SPEC's synthesis request, which the engine's gate checks.
 */
import * as z from 'zod'
import type { SynthesisRequest } from '../../../engine/requests.js'
import { TtsError } from '../../../errors.js'
import type { Language } from '../../../text/types.js'
import type { ModelMap } from './models.js'
import { svcModelId } from './models.js'
import { svcVoiceId, type VoiceMap } from './voices.js'

const score = z.number().min(0).max(1).nullish()

/** stability, similarity_boost, style and use_speaker_boost have no svc-tts counterpart: checked, then unused. */
export const voiceSettingsSchema = z
  .object({ stability: score, similarity_boost: score, style: score, use_speaker_boost: z.boolean().nullish(), speed: z.number().nullish() })
  .nullish()

/** ElevenLabs' dictionary locators: svc-tts's dictionaries by id, `version_id` a version number (the latest when absent). */
export const pronunciationLocatorsSchema = z
  .array(z.object({ pronunciation_dictionary_id: z.string().min(1), version_id: z.string().regex(/^\d{1,9}$/, 'version_id must be a version number of the dictionary').nullish() }))
  .nullish()

/** The SPEC request's `pronunciation_dictionaries` for ElevenLabs' locators (the gate checks how many and which). */
export function svcDictionaries(locators: z.infer<typeof pronunciationLocatorsSchema>): { id: string; version?: number }[] | undefined {
  if (!locators || locators.length === 0) return undefined
  return locators.map(({ pronunciation_dictionary_id: id, version_id: version }) => (version ? { id, version: Number(version) } : { id }))
}

export const speechBodySchema = z.object({
  text: z.string().min(1, 'text must not be empty'),
  model_id: z.string().min(1).nullish(),
  voice_settings: voiceSettingsSchema,
  language_code: z.string().nullish(),
  pronunciation_dictionary_locators: pronunciationLocatorsSchema,
  seed: z.number().int().nullish(),
  previous_text: z.string().nullish(),
  next_text: z.string().nullish(),
  previous_request_ids: z.array(z.string()).nullish(),
  next_request_ids: z.array(z.string()).nullish(),
  apply_text_normalization: z.enum(['auto', 'on', 'off']).nullish(),
})

export type SpeechBody = z.infer<typeof speechBodySchema>

export interface DialectTables {
  models: ModelMap
  voices: VoiceMap
}

/** svc-tts's language: ElevenLabs' ISO 639-1 code (a region, `en-US`, is dropped); the gate checks it. */
export function svcLanguage(code: string | null | undefined): string | undefined {
  return code ? code.split(/[-_]/)[0]!.toLowerCase() : undefined
}

/** The speed of voice_settings, checked against what svc-tts reaches (never clamped). */
export function svcSpeed(speed: number | null | undefined): number | undefined {
  if (speed === null || speed === undefined) return undefined
  if (!(speed >= 0.5 && speed <= 2)) throw new TtsError('INVALID_REQUEST', `voice_settings.speed ${speed} is out of range: svc-tts speaks from 0.5 to 2`)
  return speed
}

/** The SPEC request a body asks for (`format`: the output_format fields of the query). */
export function speechRequest(tables: DialectTables, voiceId: string, body: SpeechBody, format: SynthesisRequest<string>['output_format']): SynthesisRequest<string> {
  const language = svcLanguage(body.language_code)
  const speed = svcSpeed(body.voice_settings?.speed)
  const dictionaries = svcDictionaries(body.pronunciation_dictionary_locators)
  return {
    model_id: svcModelId(tables.models, body.model_id),
    transcript: body.text,
    voice: { mode: 'id', id: svcVoiceId(tables.voices, voiceId) },
    output_format: format,
    ...(language && { language: language as Language }),  // the gate refuses a language it does not have
    ...(speed !== undefined && { speed }),
    ...(dictionaries && { pronunciation_dictionaries: dictionaries }),
  }
}
