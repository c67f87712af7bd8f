/** How every adapter answers a failure: the status, Retry-After where it applies, and the JSON body. */
import { TtsError, isTtsError } from '../errors.js'
import { parseTarget } from './target.js'

/** An error as the response every adapter sends: the status, Retry-After where it applies, and the JSON body. */
export function errorResponse(error: unknown): { status: number; headers: Record<string, string>; json: ReturnType<TtsError['toJSON']> } {
  const known = isTtsError(error) ? error : undefined
  const headers: Record<string, string> = {}
  const retryAfter = known?.extra?.retry_after_seconds
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter)
  if (!known || known.status === 500) {
    // The cause stays in the server's log; the client learns only that it was the server's fault.
    return { status: 500, headers, json: { error_code: known?.code ?? 'INTERNAL_ERROR', message: 'internal server error' } }
  }
  return { status: known.status, headers, json: known.toJSON() }
}

/** The refusal of a request no route serves: 400 for a target that cannot be read, else ROUTE_NOT_FOUND. */
export function notFound(method: string | undefined, url: string | undefined): TtsError {
  try {
    return new TtsError('ROUTE_NOT_FOUND', `no operation ${method ?? ''} ${parseTarget(url).pathname}`)
  } catch (error) {
    return error as TtsError
  }
}
