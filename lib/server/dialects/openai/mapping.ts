/**
 * What OpenAI's names become in svc-tts: its models and its 13 voices (a table the dialect's
 * options extend or override), and its response formats. OpenAI serves 24 kHz mono; so does this.
 */
import * as z from 'zod'
import { strictObject } from '../../../validation/parse.js'
import { CONTENT_TYPES, type Container } from '../../../audio/format.js'
import type { RequestedFormat } from '../../../engine/requests.js'

/** OpenAI's model names: tts-1 is its fast one, the others its higher-quality ones. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = {
  'tts-1': 'svc_flash_v1.5',
  'tts-1-hd': 'svc_pro_v1.0',
  'gpt-4o-mini-tts': 'svc_pro_v1.0',
  'gpt-4o-mini-tts-2025-12-15': 'svc_pro_v1.0',
}

/**
 * OpenAI's voices onto the English predefined voices by how they are perceived: the female and
 * neutral ones to Sarah (the one English female voice), the low male ones to Richard, fable
 * (British) and ballad to Alan (Scottish), the brighter male ones to Kal. A target is a voice
 * name or id of the engine's library.
 */
export const DEFAULT_VOICES: Readonly<Record<string, string>> = {
  alloy: 'Sarah',
  coral: 'Sarah',
  marin: 'Sarah',
  nova: 'Sarah',
  sage: 'Sarah',
  shimmer: 'Sarah',
  cedar: 'Richard',
  echo: 'Richard',
  onyx: 'Richard',
  ballad: 'Alan',
  fable: 'Alan',
  ash: 'Kal',
  verse: 'Kal',
}

const nameTable = z.record(z.string().min(1).max(200), z.string().min(1).max(200))

/** `dialects: { openai: { models?, voices? } }`: entries merged over the defaults above. */
export const openAiOptionsSchema = strictObject({ models: nameTable.optional(), voices: nameTable.optional() })

export type OpenAiOptions = z.output<typeof openAiOptionsSchema>

export interface NameTables {
  models: ReadonlyMap<string, string>
  /** Keyed in lower case: a client's `Alloy` is OpenAI's `alloy`. */
  voices: ReadonlyMap<string, string>
}

export function nameTables(options: OpenAiOptions): NameTables {
  const voices = { ...DEFAULT_VOICES, ...options.voices }
  return {
    models: new Map(Object.entries({ ...DEFAULT_MODELS, ...options.models })),
    voices: new Map(Object.entries(voices).map(([name, target]) => [name.toLowerCase(), target])),
  }
}

/** OpenAI's formats svc-tts can make (aac cannot: no AAC encoder from Debian main is linked into the addon). */
export const RESPONSE_FORMATS = ['mp3', 'opus', 'flac', 'wav', 'pcm'] as const
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number]

/** OpenAI's rate for every format; its `pcm` is headerless 16-bit little-endian mono at this rate, which clients hard-code. */
export const OPENAI_SAMPLE_RATE = 24000

const CONTAINER: Record<ResponseFormat, Container> = { mp3: 'mp3', opus: 'ogg', flac: 'flac', wav: 'wav', pcm: 'raw' }

export function outputFormatOf(format: ResponseFormat): RequestedFormat & { container: Container } {
  return { container: CONTAINER[format], encoding: 'pcm_s16le', sample_rate: OPENAI_SAMPLE_RATE }
}

export function contentTypeOf(format: ResponseFormat): string {
  return format === 'pcm' ? 'audio/pcm' : CONTENT_TYPES[CONTAINER[format]]
}
