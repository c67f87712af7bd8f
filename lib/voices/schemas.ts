/**
 * The voice API's request shapes, validated with zod; the types of the voice operations and of
 * the VoiceStore interface are inferred from them, so each shape is written once.
 */
import * as z from 'zod'
import { strictObject } from '../validation/parse.js'
import { LANGUAGES } from '../text/types.js'

export const languageSchema = z.enum(LANGUAGES)
export const genderSchema = z.enum(['Male', 'Female'])
export const voiceTypeSchema = z.enum(['PREDEFINED', 'CUSTOM'])

export const listVoicesSchema = strictObject({
  limit: z.number().int().min(1).max(100).optional(),
  /** Opaque: the `next_cursor` of the page before. */
  cursor: z.string().min(1).max(200).optional(),
  language: languageSchema.optional(),
  gender: genderSchema.optional(),
  voice_type: voiceTypeSchema.optional(),
})

const voiceName = z.string().trim().min(1).max(100)
const voiceDescription = z.string().max(1000)

/** PUT /voices/{id}: any of the record's editable fields. */
export const voicePatchSchema = strictObject({
  name: voiceName.optional(),
  description: voiceDescription.optional(),
  language: languageSchema.optional(),
  gender: genderSchema.optional(),
})

/** The fields that come with a clone's sample (gender is inferred from the sample when left out). */
export const cloneRequestSchema = strictObject({
  name: voiceName,
  description: voiceDescription.default(''),
  language: languageSchema,
  gender: genderSchema.optional(),
})

export const voiceIdsSchema = z.array(z.string().min(1).max(100)).min(1).max(100)

/** POST /voices/batch. */
export const voiceBatchRequestSchema = strictObject({ voice_ids: voiceIdsSchema })

/**
 * What the native backends accept from a voice, whatever VoiceStore returned it: espeak-ng
 * reads 80 to 450 words a minute (175 x speed) and its pitch spans an octave either way.
 */
const voiceSpeed = z.number().min(0.5).max(2.5)
const voicePitch = z.number().min(0.5).max(2)
/** The native transform's range (native/audio/voice_transform.cc): two octaves either way. */
const transformScale = z.number().min(0.25).max(4)

const backendTuningSchema = z.object({
  speed: voiceSpeed,
  pitch: voicePitch,
  transform: z.object({ pitchScale: transformScale, formantScale: transformScale }),
})

export const voiceRenderingSchema = z.object({
  espeakVariant: z.string().regex(/^(?:\+[a-z0-9_]{1,32})?$/i),
  flite: z.string().regex(/^[a-z0-9_]{1,32}$/i).optional(),
  speed: voiceSpeed,
  pitch: voicePitch,
  tuning: z.object({ espeak: backendTuningSchema, flite: backendTuningSchema }).optional(),
})

export type Gender = z.infer<typeof genderSchema>
export type VoiceType = z.infer<typeof voiceTypeSchema>
export type ListVoicesOptions = z.input<typeof listVoicesSchema>
export type VoicePatch = z.input<typeof voicePatchSchema>
/** What `engine.voices.clone` takes beside the sample. */
export type CloneVoiceFields = z.input<typeof cloneRequestSchema>
