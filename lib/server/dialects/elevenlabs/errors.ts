/**
 * How ElevenLabs' clients present their key and read a refusal: the `xi-api-key` header, and
 * `{"detail": {"status": "<code>", "message": "..."}}` with the HTTP status, which the SDK raises as
 * its error classes (UnauthorizedError, NotFoundError, ... or ElevenLabsError with `statusCode`).
 */
import type { ErrorCode, TtsError } from '../../../errors.js'
import { header, type Dialect } from '../../dialect.js'

/** Every svc-tts code as the `detail.status` an ElevenLabs client reads (ElevenLabs' own names where it has one). */
export const ELEVENLABS_STATUS: Readonly<Record<ErrorCode, string>> = {
  INVALID_REQUEST: 'invalid_request',
  INVALID_MARKUP: 'invalid_markup',
  INVALID_PHONEMES: 'invalid_phonemes',
  INVALID_LANGUAGE: 'unsupported_language',
  FORMAT_NOT_RECOGNIZED: 'invalid_output_format',
  MODEL_NOT_FOUND: 'model_not_found',
  TRANSCRIPT_TOO_LONG: 'max_character_limit_exceeded',
  INVALID_MESSAGE: 'invalid_message',
  AUDIO_TOO_LONG: 'audio_too_long',
  INVALID_ARGUMENT: 'invalid_request',
  NO_SPEECH: 'no_speech',
  SAMPLE_TOO_SHORT: 'sample_too_short',
  SAMPLE_TOO_LONG: 'sample_too_long',
  SAMPLE_NOT_SPEECH: 'sample_not_speech',
  UNSUPPORTED_AUDIO: 'unsupported_audio',
  SAMPLE_TOO_LARGE: 'sample_too_large',
  VOICE_READ_ONLY: 'voice_read_only',
  VOICE_QUOTA_EXCEEDED: 'voice_limit_reached',
  TOKEN_RESTRICTED: 'forbidden',
  ORIGIN_NOT_ALLOWED: 'forbidden',
  INVALID_API_KEY: 'invalid_api_key',
  VOICE_NOT_FOUND: 'voice_not_found',
  DICTIONARY_NOT_FOUND: 'pronunciation_dictionary_not_found',
  VERSION_NOT_FOUND: 'version_not_found',
  ROUTE_NOT_FOUND: 'not_found',
  CONTEXT_NOT_FOUND: 'context_not_found',
  JOB_NOT_FOUND: 'not_found',
  IDLE_TIMEOUT: 'input_timeout_exceeded',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  TOO_MANY_CONCURRENT_REQUESTS: 'too_many_concurrent_requests',
  RATE_LIMIT_EXCEEDED: 'rate_limit_exceeded',
  USAGE_LIMIT_EXCEEDED: 'quota_exceeded',
  CONTEXT_LIMIT_EXCEEDED: 'max_active_conversations',
  MESSAGE_RATE_EXCEEDED: 'rate_limit_exceeded',
  MESSAGE_QUEUE_FULL: 'rate_limit_exceeded',
  UNREAD_OUTPUT_EXCEEDED: 'unread_output_exceeded',
  ABORTED: 'aborted',
  INTERNAL_ERROR: 'internal_error',
  NATIVE_LOAD_FAILED: 'internal_error',
  MODEL_PACK_INVALID: 'internal_error',
  DEVICE_UNAVAILABLE: 'internal_error',
  SYNTHESIS_FAILED: 'internal_error',
  INVALID_VOICE: 'internal_error',
  VOICE_LIBRARY_UNAVAILABLE: 'internal_error',
  IO_FAILED: 'internal_error',
  PLAYER_NOT_FOUND: 'internal_error',
  MISSING_DEPENDENCY: 'internal_error',
  DOWNLOAD_FAILED: 'internal_error',
  CHECKSUM_MISMATCH: 'internal_error',
  MODEL_NOT_IN_CATALOGUE: 'model_not_found',
  ENGINE_CLOSED: 'system_busy',
  SERVER_CLOSING: 'system_busy',
  SERVER_STARTING: 'system_busy',
  STORE_UNAVAILABLE: 'system_busy',
  VOICE_LIBRARY_BUSY: 'system_busy',
  VOICE_LIBRARY_READ_ONLY: 'system_busy',
  STORAGE_FULL: 'internal_error',
}

export const ELEVENLABS_DIALECT: Dialect = {
  name: 'elevenlabs',
  key: (headers) => header(headers, 'xi-api-key'),
  errorBody: (error: TtsError) => ({ detail: { status: ELEVENLABS_STATUS[error.code], message: error.message } }),
}
