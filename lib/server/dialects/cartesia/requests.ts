/**
 * Cartesia's generation request (`POST /tts/bytes`, `/tts/sse`, each WebSocket message) as the
 * SPEC's speaking fields. The schemas check Cartesia's wire shape only; the values the SPEC
 * checks (sample rates, bit rates, languages, voices, models) are left to the engine's gate, and
 * what svc-tts cannot do is refused here, naming what it can.
 */
import * as z from 'zod'
import { ENCODINGS } from '../../../audio/format.js'
import { TtsError } from '../../../errors.js'
import { svcModel, type ModelTable } from './models.js'

/** A voice id, `{ id }` (4.x SDKs) or `{ mode: 'id', id }` (earlier SDKs, LiveKit). */
const voiceSchema = z.union([z.string().min(1), z.looseObject({ mode: z.string().optional(), id: z.string().min(1).optional(), embedding: z.unknown().optional() })])

const outputFormatSchema = z.object({
  container: z.enum(['raw', 'wav', 'mp3'], { error: 'container must be raw, wav or mp3' }),
  encoding: z.enum(ENCODINGS, { error: `encoding must be one of ${ENCODINGS.join(', ')}` }).optional(),
  sample_rate: z.number(),
  bit_rate: z.number().optional(),
})

const generationConfigSchema = z.object({ speed: z.number().optional(), volume: z.number().optional(), emotion: z.string().optional() })

/** The deprecated named speeds, as the SPEC's multipliers. */
const NAMED_SPEEDS = { slowest: 0.5, slow: 0.75, normal: 1, fast: 1.25, fastest: 1.5 } as const

/** What every generation request may say about the speech (unknown fields are dropped, as Cartesia does). */
export const GENERATION_FIELDS = {
  model_id: z.string().min(1).max(200),
  voice: voiceSchema,
  output_format: outputFormatSchema,
  language: z.string().max(32).nullish(),
  locale: z.string().max(32).nullish(),
  generation_config: generationConfigSchema.optional(),
  speed: z.union([z.enum(Object.keys(NAMED_SPEEDS) as [keyof typeof NAMED_SPEEDS]), z.number()]).optional(),
  add_timestamps: z.boolean().nullish(),
  add_phoneme_timestamps: z.boolean().nullish(),
  use_normalized_timestamps: z.boolean().nullish(),
  pronunciation_dict_id: z.string().nullish(),
  normalization: z.string().nullish(),
}

export const generationRequestSchema = z.object({
  ...GENERATION_FIELDS,
  transcript: z.string(),
  context_id: z.string().max(128).nullish(),
  save: z.boolean().nullish(),
})

export type GenerationRequest = z.output<typeof generationRequestSchema>
export type SpeechFieldsInput = Pick<GenerationRequest, keyof typeof GENERATION_FIELDS>

/** The SPEC's speaking fields of a request (the engine's gate checks their values). */
export interface SpeakingFields {
  model_id: string
  voice: { mode: 'id'; id: string }
  output_format: { container: 'raw' | 'wav' | 'mp3'; encoding?: string; sample_rate: number; bit_rate?: number }
  language?: string
  speed?: number
}

function unsupported(field: string, why: string): never {
  throw new TtsError('INVALID_REQUEST', `${field}: ${why}`)
}

function voiceId(voice: SpeechFieldsInput['voice']): string {
  if (typeof voice === 'string') return voice
  if (voice.mode === 'embedding' || voice.embedding !== undefined) unsupported('voice', 'voice embeddings are not supported; give a voice id (mode "id")')
  if (voice.mode !== undefined && voice.mode !== 'id') unsupported('voice.mode', 'only "id" is supported')
  if (voice.__experimental_controls !== undefined) unsupported('voice.__experimental_controls', 'use generation_config.speed (emotions are not supported)')
  return voice.id ?? unsupported('voice.id', 'a voice id is required')
}

function speedOf({ speed, generation_config: config }: SpeechFieldsInput): number | undefined {
  if (config?.volume !== undefined && config.volume !== 1) unsupported('generation_config.volume', 'volume is not supported (only 1)')
  if (config?.emotion !== undefined && config.emotion !== 'neutral') unsupported('generation_config.emotion', 'emotions are not supported (only "neutral")')
  if (speed !== undefined && config?.speed !== undefined) unsupported('speed', 'give generation_config.speed or speed, not both')
  if (typeof speed === 'number') unsupported('speed', `a number is not supported; use generation_config.speed (0.5 to 2) or one of ${Object.keys(NAMED_SPEEDS).join(', ')}`)
  return speed === undefined ? config?.speed : NAMED_SPEEDS[speed]
}

function languageOf({ language, locale }: SpeechFieldsInput): string | undefined {
  if (language != null && locale != null) unsupported('locale', 'a request may set language or locale, never both')
  // A locale's language is what the engine speaks (en-GB is en).
  return language ?? locale?.split('-')[0]?.toLowerCase()
}

/** A Cartesia request's speech as the SPEC's fields; what svc-tts cannot do is a 400 naming it. */
export function speakingFields(request: SpeechFieldsInput, models: ModelTable): SpeakingFields {
  if (request.add_phoneme_timestamps) unsupported('add_phoneme_timestamps', 'phoneme timestamps are not supported (word timestamps are: add_timestamps)')
  if (request.pronunciation_dict_id != null) unsupported('pronunciation_dict_id', 'pronunciation dictionaries are not supported; use <phonemes> markup in the transcript')
  if (request.normalization != null && request.normalization !== 'auto') unsupported('normalization', 'only "auto" is supported (svc-tts always normalises text)')
  const { container, encoding, sample_rate, bit_rate } = request.output_format
  if (container !== 'mp3' && encoding === undefined) throw new TtsError('FORMAT_NOT_RECOGNIZED', `output_format.encoding: a ${container} output_format needs an encoding (${ENCODINGS.join(', ')})`)
  if (container !== 'mp3' && bit_rate !== undefined) throw new TtsError('FORMAT_NOT_RECOGNIZED', 'output_format.bit_rate: only an mp3 output_format takes a bit_rate')
  const language = languageOf(request)
  const speed = speedOf(request)
  return {
    model_id: svcModel(models, request.model_id),
    voice: { mode: 'id', id: voiceId(request.voice) },
    output_format: { container, ...(encoding && { encoding }), sample_rate, ...(bit_rate !== undefined && { bit_rate }) },
    ...(language !== undefined && { language }),
    ...(speed !== undefined && { speed }),
  }
}
