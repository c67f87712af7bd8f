/**
 * The SPEC's request shapes, validated with zod. Validation failures become TtsErrors with the
 * SPEC's codes: a bad output_format is FORMAT_NOT_RECOGNIZED, anything else INVALID_REQUEST.
 */
import { z } from 'zod'
import { CONTAINERS, ENCODINGS, SAMPLE_RATES, type OutputFormat } from './audio/format.js'
import { TtsError } from './errors.js'
import { deviceSchema, modelPacksSchema } from './neural/options.js'

export const DEFAULT_MAX_TRANSCRIPT_CHARS = 100_000

const outputFormatSchema = z.object({
  container: z.enum(CONTAINERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  sample_rate: z
    .number()
    .int()
    .refine((rate) => (SAMPLE_RATES as readonly number[]).includes(rate), {
      message: `sample_rate must be one of ${SAMPLE_RATES.join(', ')}`,
    })
    .optional(),
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
  espeakDataPath: z.string().min(1).optional(),
  models: modelPacksSchema.optional(),
  device: deviceSchema.optional(),
  modelThreads: z.number().int().min(1).max(64).optional(),
})

export const listVoicesSchema = z.object({
  limit: z.number().int().min(1).max(100).optional(),
  cursor: z.string().min(1).optional(),
})

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')
}

export function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value)
  if (!result.success) throw new TtsError('INVALID_REQUEST', `invalid ${what}: ${describe(result.error)}`)
  return result.data
}

/** Resolves output_format with its defaults (raw, pcm_s16le, 44100), given the container default of the call. */
export function parseOutputFormat(value: unknown, defaultContainer: OutputFormat['container']): OutputFormat {
  const result = outputFormatSchema.safeParse(value ?? {})
  if (!result.success) throw new TtsError('FORMAT_NOT_RECOGNIZED', `output_format not recognized: ${describe(result.error)}`)
  return {
    container: result.data.container ?? defaultContainer,
    encoding: result.data.encoding ?? 'pcm_s16le',
    sample_rate: result.data.sample_rate ?? 44100,
  }
}

export function parseSynthesisRequest(value: unknown, maxTranscriptChars: number): z.infer<typeof synthesisRequestSchema> {
  const request = parseWith(synthesisRequestSchema, value, 'synthesis request')
  if (request.transcript.length > maxTranscriptChars) {
    throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${request.transcript.length} characters; the limit is ${maxTranscriptChars}`)
  }
  return request
}
