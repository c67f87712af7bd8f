/**
 * A dialect: the wire shapes of one API that clients already speak (the SPEC's own, OpenAI's,
 * ElevenLabs', Cartesia's). A dialect only says how its clients present their key and how they
 * read a refusal; everything underneath (keys, scopes, limits, validation, the engine) is the
 * service's one path.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { TtsError, isTtsError } from '../errors.js'

export interface Dialect {
  readonly name: string
  /** The API key as this API's clients send it over HTTP. */
  key(headers: IncomingHttpHeaders): string | undefined
  /** A refusal as this API's clients read it; `error` is a client error (status < 500) or the generic INTERNAL_ERROR. */
  errorBody(error: TtsError): unknown
  /** The HTTP status this API answers `error` with, where it differs from the service's (OpenAI: an unknown model is a 404). */
  status?(error: TtsError): number
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The token of `Authorization: Bearer <token>`. */
export function bearer(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, 'authorization') ?? '')
  return match?.[1]
}

export const SPEC_DIALECT: Dialect = {
  name: 'spec',
  // Bearer: a browser token (or a key) as pages send credentials.
  key: (headers) => header(headers, 'x-api-key') ?? bearer(headers),
  errorBody: (error) => error.toJSON(),
}

/**
 * What a failure becomes before a dialect shapes it: a client error as it is; a server failure
 * with its code but a generic message (its cause stays in the server's log: the client learns
 * only that it was the server's fault).
 */
export function clientFacing(error: unknown): TtsError {
  if (isTtsError(error) && error.status !== 500) return error
  return new TtsError(isTtsError(error) ? error.code : 'INTERNAL_ERROR', 'internal server error')
}
