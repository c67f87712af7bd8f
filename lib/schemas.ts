/**
 * The SPEC's request shapes, validated with zod; the public request types are inferred from these
 * schemas, so the compiler and the run-time check agree. Validation failures become TtsErrors with
 * the SPEC's codes: a request whose only faults are in output_format is FORMAT_NOT_RECOGNIZED, in
 * language INVALID_LANGUAGE, anything else INVALID_REQUEST.
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
import type { ModelId } from './models.js'
import { deviceSchema, modelPacksSchema } from './neural/options.js'
import { languageSchema } from './voices/schemas.js'

export const DEFAULT_MAX_TRANSCRIPT_CHARS = 100_000
/** Synthesis threads run this much nicer than the process: the event loop is never kept waiting behind them. */
export const DEFAULT_THREAD_NICE = 10

export const outputFormatSchema = z.object({
  container: z.enum(CONTAINERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  sample_rate: z.literal(SAMPLE_RATES, { error: `sample_rate must be one of ${SAMPLE_RATES.join(', ')}` }).optional(),
  /** Bits per second of a lossy container (mp3, ogg). */
  bit_rate: z.number().int().positive().optional(),
})

/** An output format with its defaults applied: checks that its fields go together. */
const resolvedOutputFormatSchema = z
  .object({ container: z.enum(CONTAINERS), encoding: z.enum(ENCODINGS), sample_rate: z.number(), bit_rate: z.number().optional() })
  .superRefine((format, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
    if (isCompressed(format) && !(COMPRESSED_ENCODINGS as readonly string[]).includes(format.encoding)) {
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

export const voiceSelectorSchema = z.object({ mode: z.literal('id'), id: z.string().min(1) })

/** Extension: the speaking rate, from half (0.5) to twice (2) the voice's own. */
export const speedSchema = z.number().min(0.5).max(2)

export const synthesisRequestSchema = z.object({
  /** One of the engine's model ids (the SPEC's three, and any served by a neural pack). */
  model_id: z.string().min(1),
  transcript: z.string().min(1, 'transcript must not be empty'),
  voice: voiceSelectorSchema,
  output_format: outputFormatSchema.optional(),
  language: languageSchema.optional(),
  speed: speedSchema.default(1),
})

/** A request with the model ids of an engine (`Engine<M>`); `model_id` is checked against the engine's models at run time. */
type WithModel<T, M extends string> = Omit<T, 'model_id'> & { model_id: M }

/** What `synthesize`, `stream`, `synthesizeWithTimestamps` and `speak` take. */
export type SynthesisRequest<M extends string = ModelId> = WithModel<z.input<typeof synthesisRequestSchema>, M>

/** A speech session's request: a synthesis request whose transcript (written at once) is optional. */
export const sessionRequestSchema = synthesisRequestSchema.extend({ transcript: z.string().optional() })

/** What `open` takes. */
export type SessionRequest<M extends string = ModelId> = WithModel<z.input<typeof sessionRequestSchema>, M>

export type OutputFormatRequest = z.input<typeof outputFormatSchema>

/** The plain (non-object) engine options; invalid values fail createEngine with INVALID_REQUEST. */
export const engineOptionsSchema = z.object({
  threads: z.number().int().min(1).max(64).optional(),
  threadNice: z.number().int().min(0).max(19).optional(),
  queueCapacity: z.number().int().min(1).max(64).optional(),
  aheadSeconds: z.number().min(0).max(600).optional(),
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

export { cloneRequestSchema, listVoicesSchema, voiceIdsSchema, voicePatchSchema } from './voices/schemas.js'

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')
}

/** Each failed check with the path of the field it concerns, for clients that point at the field. */
function issues(error: z.ZodError): { issues: { path: (string | number)[]; message: string }[] } {
  return { issues: error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message })) }
}

/** schema.safeParse, with a value that throws while it is read (a getter, a Proxy) as INVALID_REQUEST. */
function safeParse<S extends z.ZodType>(schema: S, value: unknown, what: string, code: ErrorCode = 'INVALID_REQUEST'): z.ZodSafeParseResult<z.output<S>> {
  try {
    return schema.safeParse(value)
  } catch (cause) {
    throw new TtsError(code, `invalid ${what}: reading it threw ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

/** The SPEC's own codes for a synthesis request (or realtime message) whose every fault is in one of these fields. */
export const SYNTHESIS_FIELD_CODES: Readonly<Record<string, ErrorCode>> = { output_format: 'FORMAT_NOT_RECOGNIZED', language: 'INVALID_LANGUAGE' }

function errorCode(error: z.ZodError, fieldCodes: Readonly<Record<string, ErrorCode>>): ErrorCode {
  const codes = new Set(error.issues.map((i) => {
    const field = String(i.path[0])
    return (Object.hasOwn(fieldCodes, field) && fieldCodes[field]) || 'INVALID_REQUEST'
  }))
  return codes.size === 1 ? [...codes][0]! : 'INVALID_REQUEST'
}

/** Validates `value`: a TtsError INVALID_REQUEST (or the field's own code, see SYNTHESIS_FIELD_CODES) names every fault. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string, fieldCodes: Readonly<Record<string, ErrorCode>> = {}): z.output<S> {
  const result = safeParse(schema, value, what)
  if (!result.success) throw new TtsError(errorCode(result.error, fieldCodes), `invalid ${what}: ${describe(result.error)}`, { extra: issues(result.error) })
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

/**
 * The engine's own parse leaves output_format to parseOutputFormat, so that any fault in it, even a
 * getter that throws while it is read, is FORMAT_NOT_RECOGNIZED.
 */
const formatLater = { output_format: z.unknown().optional() }
const engineRequestSchema = synthesisRequestSchema.extend(formatLater)
const engineSessionSchema = sessionRequestSchema.extend(formatLater)

export function parseSessionRequest(value: unknown, maxTranscriptChars: number): z.output<typeof engineSessionSchema> {
  const request = parseWith(engineSessionSchema, value, 'session request', SYNTHESIS_FIELD_CODES)
  if (request.transcript !== undefined && request.transcript.length > maxTranscriptChars) {
    throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${request.transcript.length} characters; the limit is ${maxTranscriptChars}`)
  }
  return request
}

export function parseSynthesisRequest(value: unknown, maxTranscriptChars: number): z.output<typeof engineRequestSchema> {
  const request = parseWith(engineRequestSchema, value, 'synthesis request', SYNTHESIS_FIELD_CODES)
  if (request.transcript.length > maxTranscriptChars) {
    throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${request.transcript.length} characters; the limit is ${maxTranscriptChars}`)
  }
  return request
}
