/**
 * How OpenAI's clients present their key (`Authorization: Bearer`) and read a refusal:
 * `{ "error": { "message", "type", "param", "code" } }` with the HTTP status, which the SDK turns
 * into its error classes (401 AuthenticationError, 400 BadRequestError, 404 NotFoundError, 429
 * RateLimitError). Every svc-tts error code is mapped in the one table below.
 */
import type { ErrorCode, TtsError } from '../../../errors.js'
import { bearer, type Dialect } from '../../dialect.js'

interface OpenAiError {
  type: string
  /** OpenAI's code; the svc-tts code in lower case when left out. */
  code?: string
  /** The request field at fault when the failure itself names none. */
  param?: string
  /** The status where OpenAI's differs from the service's. */
  status?: number
}

const INVALID: OpenAiError = { type: 'invalid_request_error' }
const RATE: OpenAiError = { type: 'requests', code: 'rate_limit_exceeded' }
const SERVER: OpenAiError = { type: 'server_error' }

export const OPENAI_ERRORS: Readonly<Record<ErrorCode, OpenAiError>> = {
  INVALID_REQUEST: INVALID,
  INVALID_MARKUP: { ...INVALID, param: 'input' },
  INVALID_PHONEMES: { ...INVALID, param: 'input' },
  TRANSCRIPT_TOO_LONG: { ...INVALID, param: 'input' },
  NO_SPEECH: { ...INVALID, param: 'input' },
  // A voice whose language its model lacks (a French voice on tts-1-hd): the voice is what to change.
  INVALID_LANGUAGE: { ...INVALID, param: 'voice' },
  FORMAT_NOT_RECOGNIZED: { ...INVALID, param: 'response_format' },
  // OpenAI answers a model it does not have with 404 model_not_found, and a voice with 400.
  MODEL_NOT_FOUND: { ...INVALID, code: 'model_not_found', param: 'model', status: 404 },
  VOICE_NOT_FOUND: { ...INVALID, code: 'invalid_value', param: 'voice', status: 400 },
  DICTIONARY_NOT_FOUND: { ...INVALID, code: 'invalid_value', param: 'pronunciation_dictionaries', status: 400 },
  INVALID_MESSAGE: INVALID,
  AUDIO_TOO_LONG: INVALID,
  INVALID_ARGUMENT: INVALID,
  SAMPLE_TOO_SHORT: INVALID,
  SAMPLE_TOO_LONG: INVALID,
  SAMPLE_NOT_SPEECH: INVALID,
  UNSUPPORTED_AUDIO: INVALID,
  SAMPLE_TOO_LARGE: INVALID,
  PAYLOAD_TOO_LARGE: INVALID,
  VOICE_READ_ONLY: INVALID,
  VOICE_QUOTA_EXCEEDED: INVALID,
  TOKEN_RESTRICTED: INVALID,
  ORIGIN_NOT_ALLOWED: INVALID,
  INVALID_API_KEY: { ...INVALID, code: 'invalid_api_key' },
  VERSION_NOT_FOUND: INVALID,
  ROUTE_NOT_FOUND: INVALID,
  CONTEXT_NOT_FOUND: INVALID,
  JOB_NOT_FOUND: INVALID,
  IDLE_TIMEOUT: INVALID,
  ABORTED: INVALID,
  TOO_MANY_CONCURRENT_REQUESTS: RATE,
  RATE_LIMIT_EXCEEDED: RATE,
  CONTEXT_LIMIT_EXCEEDED: RATE,
  MESSAGE_RATE_EXCEEDED: RATE,
  MESSAGE_QUEUE_FULL: RATE,
  UNREAD_OUTPUT_EXCEEDED: RATE,
  USAGE_LIMIT_EXCEEDED: { type: 'insufficient_quota', code: 'insufficient_quota' },
  INTERNAL_ERROR: SERVER,
  NATIVE_LOAD_FAILED: SERVER,
  MODEL_PACK_INVALID: SERVER,
  DEVICE_UNAVAILABLE: SERVER,
  SYNTHESIS_FAILED: SERVER,
  INVALID_VOICE: SERVER,
  VOICE_LIBRARY_UNAVAILABLE: SERVER,
  IO_FAILED: SERVER,
  PLAYER_NOT_FOUND: SERVER,
  MISSING_DEPENDENCY: SERVER,
  DOWNLOAD_FAILED: SERVER,
  CHECKSUM_MISMATCH: SERVER,
  MODEL_NOT_IN_CATALOGUE: { type: 'invalid_request_error', code: 'model_not_found' },
  ENGINE_CLOSED: SERVER,
  SERVER_CLOSING: SERVER,
  SERVER_STARTING: SERVER,
  STORE_UNAVAILABLE: SERVER,
  VOICE_LIBRARY_BUSY: SERVER,
  VOICE_LIBRARY_READ_ONLY: SERVER,
  STORAGE_FULL: SERVER,
}

/** The SPEC request's fields under their OpenAI names: a fault the engine's gate finds is pointed at what the client sent. */
const OPENAI_FIELD: Readonly<Record<string, string>> = { transcript: 'input', model_id: 'model', output_format: 'response_format', voice: 'voice', speed: 'speed' }

/** The field of the first fault a schema named (`extra.issues`, see parseWith), under its OpenAI name. */
function faultyField(error: TtsError): string | undefined {
  const issues = error.extra?.issues
  if (!Array.isArray(issues)) return undefined
  const path = (issues[0] as { path?: unknown } | undefined)?.path
  const field = Array.isArray(path) && path.length > 0 ? String(path[0]) : undefined
  return field === undefined ? undefined : (OPENAI_FIELD[field] ?? field)
}

export function openAiErrorBody(error: TtsError): { error: { message: string; type: string; param: string | null; code: string } } {
  const shape = OPENAI_ERRORS[error.code]
  return {
    error: {
      message: error.message,
      type: shape.type,
      param: faultyField(error) ?? shape.param ?? null,
      code: shape.code ?? error.code.toLowerCase(),
    },
  }
}

export const OPENAI_DIALECT: Dialect = {
  name: 'openai',
  key: bearer,
  errorBody: openAiErrorBody,
  status: (error) => OPENAI_ERRORS[error.code].status ?? error.status,
}
