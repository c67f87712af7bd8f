/**
 * The SPEC's request shapes, validated with zod. They are strict: a field they do not know is an
 * error that names it (and the field it is closest to), never a silent default. The public request
 * types are inferred from these schemas, so the compiler and the run-time check agree. A request
 * whose only faults are in output_format is FORMAT_NOT_RECOGNIZED, in language INVALID_LANGUAGE,
 * anything else INVALID_REQUEST.
 */
import * as z from 'zod'
import {
  COMPRESSED_ENCODINGS,
  CONTAINERS,
  defaultBitRate,
  ENCODINGS,
  isCompressed,
  mp3BitRates,
  OPUS_BIT_RATE_RANGE,
  SAMPLE_RATES,
  type Container,
  type Encoding,
  type OutputFormat,
  type SampleRate,
} from '../audio/format.js'
import type { ErrorCode } from '../errors.js'
import { strictObject } from '../validation/parse.js'
import { dictionaryLocatorsSchema } from '../voices/dictionaries/schemas.js'
import { languageSchema } from '../voices/schemas.js'
import type { ModelId } from './models.js'

/** The SPEC's own codes for a synthesis request (or realtime message) whose every fault is in one of these fields. */
export const SYNTHESIS_FIELD_CODES: Readonly<Record<string, ErrorCode>> = { output_format: 'FORMAT_NOT_RECOGNIZED', language: 'INVALID_LANGUAGE' }

export const outputFormatSchema = strictObject({
  container: z.enum(CONTAINERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  sample_rate: z.literal(SAMPLE_RATES, { error: `sample_rate must be one of ${SAMPLE_RATES.join(', ')}` }).optional(),
  /** Bits per second of a lossy container (mp3, ogg). */
  bit_rate: z.number().int().positive().optional(),
})

/**
 * An output format with its defaults (pcm_s16le, 44100 Hz, a bit rate for mp3 and ogg) and its
 * fields checked together. The container stays open where the request leaves it so: each call has
 * its own default (wav for a file, raw for a stream), and both are uncompressed.
 */
export interface RequestedFormat {
  container?: Container
  encoding: Encoding
  sample_rate: SampleRate
  bit_rate?: number
}

export const DEFAULT_FORMAT: RequestedFormat = Object.freeze({ encoding: 'pcm_s16le', sample_rate: 44100 })

/** The format a call makes: the request's, in the call's container when the request names none. */
export function formatIn(format: RequestedFormat | undefined, defaultContainer: Container): OutputFormat {
  const requested = format ?? DEFAULT_FORMAT
  return { ...requested, container: requested.container ?? defaultContainer }
}

/** Reads the value once, so a getter or Proxy that throws is a fault of output_format, not of the whole request. */
function readFormat(value: unknown, context: z.RefinementCtx): unknown {
  if (typeof value !== 'object' || value === null) return value
  try {
    return { ...value }
  } catch (cause) {
    context.addIssue({ code: 'custom', message: `reading it threw ${cause instanceof Error ? cause.message : String(cause)}` })
    return z.NEVER
  }
}

const checkedFormatSchema = z.preprocess(readFormat, outputFormatSchema).transform((fields, context): RequestedFormat => {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
  const container = fields.container
  const format: RequestedFormat = { ...(container && { container }), encoding: fields.encoding ?? 'pcm_s16le', sample_rate: fields.sample_rate ?? 44100 }
  const bitRate = fields.bit_rate ?? (container === 'mp3' || container === 'ogg' ? defaultBitRate(container, format.sample_rate) : undefined)
  if (bitRate !== undefined) format.bit_rate = bitRate
  if (container && isCompressed({ container }) && !(COMPRESSED_ENCODINGS as readonly string[]).includes(format.encoding)) {
    issue('encoding', `a ${container} container takes ${COMPRESSED_ENCODINGS.join(' or ')} (the samples fed to its encoder), not ${format.encoding}`)
  }
  if (fields.bit_rate === undefined) return format
  if (container === 'mp3') {
    const rates = mp3BitRates(format.sample_rate)
    if (!rates.includes(fields.bit_rate)) issue('bit_rate', `an MP3 at ${format.sample_rate} Hz takes a bit_rate of ${rates.join(', ')}`)
  } else if (container === 'ogg') {
    const { min, max } = OPUS_BIT_RATE_RANGE
    if (fields.bit_rate < min || fields.bit_rate > max) issue('bit_rate', `Opus takes a bit_rate from ${min} to ${max}`)
  } else {
    const what = container === 'flac' ? 'lossless' : 'uncompressed'
    issue('bit_rate', `bit_rate applies to mp3 and ogg only; ${container ?? 'the default container'} is ${what}`)
  }
  return format
})

/** The same schema, typed by what it takes: the preprocess step reads any value, but a caller writes output_format's fields. */
const requestedFormatSchema = checkedFormatSchema as unknown as z.ZodType<RequestedFormat, z.input<typeof outputFormatSchema>>

/** The most voices one mix blends. */
export const MAX_MIXED_VOICES = 8

/**
 * A voice by id, or a mix of a pack's voices (Kokoro: the weighted mean of their styles):
 * `{ mode: 'mix', voices: [{ id, weight }, ...] }`.
 */
export const voiceSelectorSchema = z.discriminatedUnion('mode', [
  strictObject({ mode: z.literal('id'), id: z.string().min(1) }),
  strictObject({
    mode: z.literal('mix'),
    voices: z.array(strictObject({ id: z.string().min(1), weight: z.number().positive().max(1000) })).min(1).max(MAX_MIXED_VOICES),
  }),
])
export type VoiceSelector = z.infer<typeof voiceSelectorSchema>

/** Extension: the speaking rate, from half (0.5) to twice (2) the voice's own. */
export const speedSchema = z.number().min(0.5).max(2)

/** What every synthesis request says besides its text (a realtime connection's first message says it too). */
export const SPEAKING_FIELDS = {
  /** One of the engine's model ids (the SPEC's three, and any served by a neural pack). */
  model_id: z.string().min(1),
  voice: voiceSelectorSchema,
  output_format: requestedFormatSchema.optional(),
  language: languageSchema.optional(),
  speed: speedSchema.default(1),
  /** Extension: an SSML element the engine does not know is a 400 INVALID_MARKUP ('error', the default), or read as its text ('text'). */
  ssml_unknown_elements: z.enum(['error', 'text']).optional(),
  /** Pronunciation dictionaries to apply, in order, each at a version (the latest where none is named). */
  pronunciation_dictionaries: dictionaryLocatorsSchema.optional(),
}

/** Its output is branded: a parsed request is told apart from a raw one by type as well as at run time. */
export const synthesisRequestSchema = strictObject({
  ...SPEAKING_FIELDS,
  transcript: z.string().min(1, 'transcript must not be empty'),
}).brand<'ParsedSynthesisRequest'>()

/** A speech session's request: a synthesis request whose transcript (written at once) is optional. */
export const speechSessionRequestSchema = strictObject({ ...SPEAKING_FIELDS, transcript: z.string().optional() }).brand<'ParsedSpeechRequest'>()

/** A request with the model ids of an engine (`Engine<M>`); `model_id` is checked against the engine's models at run time. */
type WithModel<T, M extends string> = Omit<T, 'model_id'> & { model_id: M }

/** What `synthesize`, `stream`, `synthesizeWithTimestamps` and `speak` take. */
export type SynthesisRequest<M extends string = ModelId> = WithModel<z.input<typeof synthesisRequestSchema>, M>

/** What `open` takes. */
export type SpeechSessionRequest<M extends string = ModelId> = WithModel<z.input<typeof speechSessionRequestSchema>, M>

export type OutputFormatRequest = z.input<typeof outputFormatSchema>

/** A session request as validated: defaults applied, the format checked. */
export type ParsedSpeechRequest = z.output<typeof speechSessionRequestSchema>

/** A synthesis request as validated. */
export type ParsedSynthesisRequest = z.output<typeof synthesisRequestSchema>

/** A session request's fields, each checked by its schema (a realtime message's), not yet the request itself. */
export type CheckedRequestFields = Omit<ParsedSpeechRequest, typeof z.$brand>
