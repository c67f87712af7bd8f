/**
 * The one error class of the library. `code` is stable (the SPEC's codes where it names one),
 * `status` is the HTTP status an adapter answers with.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_MARKUP: 400,
  INVALID_PHONEMES: 400,
  INVALID_LANGUAGE: 400,
  FORMAT_NOT_RECOGNIZED: 400,
  MODEL_NOT_FOUND: 400,
  TRANSCRIPT_TOO_LONG: 400,
  INVALID_MESSAGE: 400,
  AUDIO_TOO_LONG: 400,
  INVALID_ARGUMENT: 400,
  NO_SPEECH: 400,
  SAMPLE_TOO_SHORT: 400,
  SAMPLE_TOO_LONG: 400,
  SAMPLE_NOT_SPEECH: 400,
  UNSUPPORTED_AUDIO: 400,
  SAMPLE_TOO_LARGE: 413,
  MODEL_NOT_IN_CATALOGUE: 404,
  VOICE_READ_ONLY: 403,
  VOICE_QUOTA_EXCEEDED: 403,
  TOKEN_RESTRICTED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  INVALID_API_KEY: 401,
  VOICE_NOT_FOUND: 404,
  DICTIONARY_NOT_FOUND: 404,
  VERSION_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CONTEXT_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  IDLE_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_CONCURRENT_REQUESTS: 429,
  RATE_LIMIT_EXCEEDED: 429,
  USAGE_LIMIT_EXCEEDED: 429,
  CONTEXT_LIMIT_EXCEEDED: 429,
  MESSAGE_RATE_EXCEEDED: 429,
  MESSAGE_QUEUE_FULL: 429,
  UNREAD_OUTPUT_EXCEEDED: 429,
  ABORTED: 499,
  INTERNAL_ERROR: 500,
  NATIVE_LOAD_FAILED: 500,
  MODEL_PACK_INVALID: 500,
  DEVICE_UNAVAILABLE: 500,
  SYNTHESIS_FAILED: 500,
  INVALID_VOICE: 500,
  VOICE_LIBRARY_UNAVAILABLE: 500,
  IO_FAILED: 500,
  PLAYER_NOT_FOUND: 500,
  MISSING_DEPENDENCY: 500,
  DOWNLOAD_FAILED: 502,
  CHECKSUM_MISMATCH: 502,
  ENGINE_CLOSED: 503,
  SERVER_CLOSING: 503,
  SERVER_STARTING: 503,
  STORE_UNAVAILABLE: 503,
  VOICE_LIBRARY_BUSY: 503,
  VOICE_LIBRARY_READ_ONLY: 503,
  STORAGE_FULL: 507,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export class TtsError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly extra: Record<string, unknown> | undefined

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; extra?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'TtsError'
    this.code = code
    this.status = ERROR_STATUS[code]
    this.extra = options.extra
  }

  toJSON(): { error_code: ErrorCode; message: string; extra?: Record<string, unknown> } {
    return this.extra ? { error_code: this.code, message: this.message, extra: this.extra } : { error_code: this.code, message: this.message }
  }
}

export function isTtsError(value: unknown): value is TtsError {
  return value instanceof TtsError
}

/** The error of an aborted call: the signal's reason when it is a TtsError (ENGINE_CLOSED), else ABORTED. */
export function abortedError(signal: AbortSignal): TtsError {
  const reason: unknown = signal.reason
  return reason instanceof TtsError ? reason : new TtsError('ABORTED', 'synthesis was aborted', { cause: reason })
}

/**
 * `promise`, or a rejection with the call's TtsError (ABORTED, ENGINE_CLOSED) as soon as `signal`
 * aborts: awaiting what cannot itself be cancelled (a voice store, a worker's reply) without
 * waiting for it once the call is aborted.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})  // settles unobserved
    return Promise.reject(abortedError(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortedError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
