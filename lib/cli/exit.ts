/**
 * How the command line fails: one line `error CODE: message` on stderr and an exit status that
 * depends only on the code, so scripts can tell a bad command line from a refused request.
 */
import { isTtsError, TtsError, type ErrorCode } from '../errors.js'

export const EXIT = {
  /** The engine refused or failed the request (any of the library's codes). */
  engine: 1,
  /** The command line itself is wrong: INVALID_ARGUMENT. */
  usage: 2,
  /** Reading the text, writing the audio or playing it failed: IO_FAILED, PLAYER_NOT_FOUND. */
  io: 3,
  /** Interrupted (Ctrl-C): ABORTED, as a shell reports SIGINT. */
  interrupted: 130,
} as const

const EXIT_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: EXIT.usage,
  IO_FAILED: EXIT.io,
  PLAYER_NOT_FOUND: EXIT.io,
  ABORTED: EXIT.interrupted,
}

export function usageError(message: string): TtsError {
  return new TtsError('INVALID_ARGUMENT', message)
}

/** A file or pipe that failed, named in the message (Node's own message says only what the call was). */
export function ioError(doing: string, cause: unknown): TtsError {
  if (isTtsError(cause)) return cause
  const reason = (cause as { code?: unknown } | null)?.code ?? (cause instanceof Error ? cause.message : String(cause))
  return new TtsError('IO_FAILED', `${doing}: ${String(reason)}`, { cause })
}

/** Any thrown value as the TtsError the user sees: parseArgs' errors are usage errors, anything else our bug. */
export function asCliError(error: unknown): TtsError {
  if (isTtsError(error)) return error
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return usageError(message)
  return new TtsError('INTERNAL_ERROR', message, { cause: error })
}

export function exitCodeOf(error: TtsError): number {
  return EXIT_BY_CODE[error.code] ?? EXIT.engine
}
