/**
 * The SPEC's request shapes, validated with zod. Validation failures become TtsErrors with the
 * SPEC's codes: a bad output_format is FORMAT_NOT_RECOGNIZED, anything else INVALID_REQUEST.
 */
import { z } from 'zod'
import {
  COMPRESSED_ENCODINGS,
  CONTAINERS,
  defaultBitRate,
  ENCODINGS,
  isCompressed,
  mp3BitRates,
  OPUS_BIT_RATE_RANGE,
  SAMPLE_RATES,
  type OutputFormat,
} from './audio/format.js'
import { TtsError, type ErrorCode } from './errors.js'
import { deviceSchema, modelPacksSchema } from './neural/options.js'
import { LANGUAGES } from './text/types.js'

export const DEFAULT_MAX_TRANSCRIPT_CHARS = 100_000

export const outputFormatSchema = z.object({
  container: z.enum(CONTAINERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  sample_rate: z
    .number()
    .int()
    .refine((rate) => (SAMPLE_RATES as readonly number[]).includes(rate), {
      message: `sample_rate must be one of ${SAMPLE_RATES.join(', ')}`,
    })
    .optional(),
  /** Bits per second of a lossy container (mp3, ogg). */
  bit_rate: z.number().int().positive().optional(),
})

/** An output format with its defaults applied: checks that its fields go together. */
const resolvedOutputFormatSchema = z
  .object({ container: z.enum(CONTAINERS), encoding: z.enum(ENCODINGS), sample_rate: z.number(), bit_rate: z.number().optional() })
  .superRefine((format, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
    if (isCompressed(format.container) && !(COMPRESSED_ENCODINGS as readonly string[]).includes(format.encoding)) {
      issue('encoding', `a ${format.container} container takes ${COMPRESSED_ENCODINGS.join(' or ')} (the samples fed to its encoder), not ${format.encoding}`)
    }
    if (format.bit_rate === undefined) return
    if (format.container === 'mp3') {
      const rates = mp3BitRates(format.sample_rate)
      if (!rates.includes(format.bit_rate)) issue('bit_rate', `an MP3 at ${format.sample_rate} Hz takes a bit_rate of ${rates.join(', ')}`)
    } else if (format.container === 'ogg') {
      const { min, max } = OPUS_BIT_RATE_RANGE
      if (format.bit_rate < min || format.bit_rate > max) issue('bit_rate', `Opus takes a bit_rate from ${min} to ${max}`)
    } else {
      issue('bit_rate', `bit_rate applies to mp3 and ogg only; ${format.container} is ${format.container === 'flac' ? 'lossless' : 'uncompressed'}`)
    }
  })

export const synthesisRequestSchema = z.object({
  model_id: z.string().min(1),
  transcript: z.string().min(1, 'transcript must not be empty'),
  voice: z.object({ mode: z.literal('id'), id: z.string().min(1) }),
  output_format: z.unknown().optional(),
  language: z.string().min(1).optional(),
})

export type SynthesisRequest = {
  model_id: string
  transcript: string
  voice: { mode: 'id'; id: string }
  output_format?: Partial<OutputFormat>
  language?: string
}

/** The plain (non-object) engine options; invalid values fail createEngine with INVALID_REQUEST. */
export const engineOptionsSchema = z.object({
  threads: z.number().int().min(1).max(64).optional(),
  queueCapacity: z.number().int().min(1).max(64).optional(),
  maxTranscriptChars: z.number().int().min(1).optional(),
  maxAudioSeconds: z.number().positive().max(86_400).optional(),
  espeakDataPath: z.string().min(1).optional(),
  dataDir: z.string().min(1).optional(),
  models: modelPacksSchema.optional(),
  device: deviceSchema.optional(),
  modelThreads: z.number().int().min(1).max(64).optional(),
})

/** The second argument of every synthesis call. */
export const callOptionsSchema = z.object({
  signal: z.instanceof(AbortSignal).optional(),
})

/**
 * What the native backends accept from a voice, whatever VoiceStore returned it: espeak-ng
 * reads 80 to 450 words a minute (175 x speed) and its pitch spans an octave either way.
 */
const voiceSpeed = z.number().min(0.5).max(2.5)
const voicePitch = z.number().min(0.5).max(2)
/** The native transform's range (native/voice_transform.cc): two octaves either way. */
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

const languageSchema = z.enum(LANGUAGES)
const genderSchema = z.enum(['Male', 'Female'])

export const listVoicesSchema = z.strictObject({
  limit: z.number().int().min(1).max(100).optional(),
  cursor: z.string().min(1).max(200).optional(),
  language: languageSchema.optional(),
  gender: genderSchema.optional(),
  voice_type: z.enum(['PREDEFINED', 'CUSTOM']).optional(),
})

const voiceName = z.string().trim().min(1).max(100)
const voiceDescription = z.string().max(1000)

/** PUT /voices/{id}: any of the record's editable fields. */
export const voicePatchSchema = z.strictObject({
  name: voiceName.optional(),
  description: voiceDescription.optional(),
  language: languageSchema.optional(),
  gender: genderSchema.optional(),
})

/** The fields that come with a clone's sample. */
export const cloneRequestSchema = z.strictObject({
  name: voiceName,
  description: voiceDescription.default(''),
  language: languageSchema,
  gender: genderSchema.optional(),
})

export const voiceIdsSchema = z.array(z.string().min(1).max(100)).min(1).max(100)

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')
}

/** Each failed check with the path of the field it concerns, for clients that point at the field. */
function issues(error: z.ZodError): { issues: { path: (string | number)[]; message: string }[] } {
  return { issues: error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message })) }
}

/** schema.safeParse, with a value that throws while it is read (a getter, a Proxy) as INVALID_REQUEST. */
function safeParse<T>(schema: z.ZodType<T>, value: unknown, what: string, code: ErrorCode = 'INVALID_REQUEST'): ReturnType<z.ZodType<T>['safeParse']> {
  try {
    return schema.safeParse(value)
  } catch (cause) {
    throw new TtsError(code, `invalid ${what}: reading it threw ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

export function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = safeParse(schema, value, what)
  if (!result.success) throw new TtsError('INVALID_REQUEST', `invalid ${what}: ${describe(result.error)}`, { extra: issues(result.error) })
  return result.data
}

function formatNotRecognized(error: z.ZodError): TtsError {
  return new TtsError('FORMAT_NOT_RECOGNIZED', `output_format not recognized: ${describe(error)}`, { extra: issues(error) })
}

/**
 * Resolves output_format with its defaults (the call's container, pcm_s16le, 44100, and for mp3
 * and ogg a bit rate), and checks that its fields go together.
 */
export function parseOutputFormat(value: unknown, defaultContainer: OutputFormat['container']): OutputFormat {
  const result = safeParse(outputFormatSchema, value ?? {}, 'output_format', 'FORMAT_NOT_RECOGNIZED')
  if (!result.success) throw formatNotRecognized(result.error)
  const container = result.data.container ?? defaultContainer
  const sampleRate = result.data.sample_rate ?? 44100
  const format: OutputFormat = { container, encoding: result.data.encoding ?? 'pcm_s16le', sample_rate: sampleRate }
  const bitRate = result.data.bit_rate ?? (container === 'mp3' || container === 'ogg' ? defaultBitRate(container, sampleRate) : undefined)
  if (bitRate !== undefined) format.bit_rate = bitRate
  const checked = resolvedOutputFormatSchema.safeParse(format)
  if (!checked.success) throw formatNotRecognized(checked.error)
  return format
}

/** A speech session's request: a synthesis request whose transcript (written at once) is optional. */
export const sessionRequestSchema = synthesisRequestSchema.extend({ transcript: z.string().optional() })

export function parseSessionRequest(value: unknown, maxTranscriptChars: number): z.infer<typeof sessionRequestSchema> {
  const request = parseWith(sessionRequestSchema, value, 'session request')
  if (request.transcript !== undefined && request.transcript.length > maxTranscriptChars) {
    throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${request.transcript.length} characters; the limit is ${maxTranscriptChars}`)
  }
  return request
}

export function parseSynthesisRequest(value: unknown, maxTranscriptChars: number): z.infer<typeof synthesisRequestSchema> {
  const request = parseWith(synthesisRequestSchema, value, 'synthesis request')
  if (request.transcript.length > maxTranscriptChars) {
    throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${request.transcript.length} characters; the limit is ${maxTranscriptChars}`)
  }
  return request
}
