/** How every adapter answers a failure: the status, Retry-After where it applies, and the body in the route's dialect. */
import { TtsError } from '../errors.js'
import { clientFacing, SPEC_DIALECT, type Dialect } from './dialect.js'
import { parseTarget } from './target.js'

export interface ErrorResponse {
  status: number
  headers: Record<string, string>
  json: unknown
  /** The service's code for the failure, whatever the dialect's body says: what the log line records. */
  errorCode: string
}

/** An error as the response every adapter sends: the status, Retry-After where it applies, and the dialect's JSON body. */
export function errorResponse(error: unknown, dialect: Dialect = SPEC_DIALECT): ErrorResponse {
  const known = clientFacing(error)
  const headers: Record<string, string> = {}
  const retryAfter = known.extra?.retry_after_seconds
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter)
  return { status: dialect.status?.(known) ?? known.status, headers, json: dialect.errorBody(known), errorCode: known.code }
}

/** The refusal of a request no route serves: 400 for a target that cannot be read, else ROUTE_NOT_FOUND. */
export function notFound(method: string | undefined, url: string | undefined): TtsError {
  try {
    return new TtsError('ROUTE_NOT_FOUND', `no operation ${method ?? ''} ${parseTarget(url).pathname}`)
  } catch (error) {
    return error as TtsError
  }
}
