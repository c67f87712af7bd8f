/**
 * How Cartesia's clients present their key and read a refusal. The key comes as `X-API-Key`
 * (LiveKit, older SDKs) or `Authorization: Bearer` (the 4.x SDK). A refusal is the JSON body the
 * SDK surfaces (`APIError.error`, its message from `message`) with the HTTP status; the same
 * fields make the WebSocket's and SSE's `error` events.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { ErrorCode, TtsError } from '../../../errors.js'
import { bearer, header, type Dialect } from '../../dialect.js'

/** Each svc-tts error code's title, as Cartesia titles its errors (the code itself goes out lower-cased as `error_code`). */
export const ERROR_TITLES: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: 'Invalid request',
  INVALID_MARKUP: 'Invalid transcript markup',
  INVALID_PHONEMES: 'Invalid phonemes',
  INVALID_LANGUAGE: 'Unsupported language',
  FORMAT_NOT_RECOGNIZED: 'Invalid output format',
  MODEL_NOT_FOUND: 'Invalid model',
  TRANSCRIPT_TOO_LONG: 'Transcript too long',
  INVALID_MESSAGE: 'Invalid message',
  AUDIO_TOO_LONG: 'Audio too long',
  INVALID_ARGUMENT: 'Invalid argument',
  NO_SPEECH: 'No speech',
  SAMPLE_TOO_SHORT: 'Sample too short',
  SAMPLE_TOO_LONG: 'Sample too long',
  SAMPLE_NOT_SPEECH: 'Sample is not speech',
  UNSUPPORTED_AUDIO: 'Unsupported audio',
  SAMPLE_TOO_LARGE: 'Sample too large',
  VOICE_READ_ONLY: 'Voice is read-only',
  VOICE_QUOTA_EXCEEDED: 'Voice quota exceeded',
  TOKEN_RESTRICTED: 'Forbidden',
  ORIGIN_NOT_ALLOWED: 'Forbidden',
  INVALID_API_KEY: 'Unauthorized',
  VOICE_NOT_FOUND: 'Voice not found',
  DICTIONARY_NOT_FOUND: 'Pronunciation dictionary not found',
  VERSION_NOT_FOUND: 'Version not found',
  ROUTE_NOT_FOUND: 'Not found',
  CONTEXT_NOT_FOUND: 'Context not found',
  JOB_NOT_FOUND: 'Not found',
  IDLE_TIMEOUT: 'Idle timeout',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  TOO_MANY_CONCURRENT_REQUESTS: 'Concurrency limit exceeded',
  RATE_LIMIT_EXCEEDED: 'Rate limit exceeded',
  USAGE_LIMIT_EXCEEDED: 'Usage limit exceeded',
  CONTEXT_LIMIT_EXCEEDED: 'Context limit exceeded',
  MESSAGE_RATE_EXCEEDED: 'Message rate exceeded',
  MESSAGE_QUEUE_FULL: 'Message queue full',
  UNREAD_OUTPUT_EXCEEDED: 'Unread output exceeded',
  ABORTED: 'Request aborted',
  INTERNAL_ERROR: 'Internal server error',
  NATIVE_LOAD_FAILED: 'Internal server error',
  MODEL_PACK_INVALID: 'Internal server error',
  DEVICE_UNAVAILABLE: 'Internal server error',
  SYNTHESIS_FAILED: 'Synthesis failed',
  INVALID_VOICE: 'Internal server error',
  VOICE_LIBRARY_UNAVAILABLE: 'Internal server error',
  IO_FAILED: 'Internal server error',
  PLAYER_NOT_FOUND: 'Internal server error',
  MISSING_DEPENDENCY: 'Internal server error',
  DOWNLOAD_FAILED: 'Bad gateway',
  CHECKSUM_MISMATCH: 'Bad gateway',
  MODEL_NOT_IN_CATALOGUE: 'Not found',
  ENGINE_CLOSED: 'Service unavailable',
  SERVER_CLOSING: 'Service unavailable',
  SERVER_STARTING: 'Service unavailable',
  STORE_UNAVAILABLE: 'Service unavailable',
  VOICE_LIBRARY_BUSY: 'Service unavailable',
  VOICE_LIBRARY_READ_ONLY: 'Service unavailable',
  STORAGE_FULL: 'Insufficient storage',
}

export interface CartesiaError {
  status_code: number
  title: string
  message: string
  error_code: string
  request_id: string
}

export function cartesiaError(error: TtsError): CartesiaError {
  return { status_code: error.status, title: ERROR_TITLES[error.code], message: error.message, error_code: error.code.toLowerCase(), request_id: randomUUID() }
}

export function cartesiaKey(headers: IncomingHttpHeaders): string | undefined {
  return header(headers, 'x-api-key') ?? bearer(headers)
}

/**
 * Every Cartesia client sends `Cartesia-Version` (the 4.x SDK its release date, LiveKit
 * 2025-04-16): what tells its requests from the SPEC's on a path both serve.
 */
export function sentByCartesiaClient(headers: IncomingHttpHeaders): boolean {
  return header(headers, 'cartesia-version') !== undefined
}

export const CARTESIA_DIALECT: Dialect = { name: 'cartesia', key: cartesiaKey, errorBody: cartesiaError }
