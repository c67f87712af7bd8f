/**
 * CORS for browsers calling the service from pages on other origins: off unless origins are
 * configured. A preflight from a listed origin is answered 204 with the methods of its path and
 * the headers asked; one from another origin 403 ORIGIN_NOT_ALLOWED. Responses to a listed origin
 * carry Access-Control-Allow-Origin (that origin, never `*` with credentials in play), and a
 * WebSocket handshake whose Origin is not listed is refused the same way.
 */
import type { IncomingHttpHeaders } from 'node:http'
import * as z from 'zod'
import { TtsError } from '../../errors.js'
import { strictObject } from '../../validation/parse.js'
import { header } from '../dialect.js'

export const corsOptionsSchema = strictObject({
  /** Origins as browsers send them (`https://app.example.com`), or `*` for any. */
  origins: z.array(z.union([z.literal('*'), z.url().transform((url) => new URL(url).origin)])).min(1),
  /** How long a browser may keep a preflight's answer (default 600 s). */
  maxAgeSeconds: z.number().int().min(0).max(86_400).optional(),
})
export type CorsOptions = z.input<typeof corsOptionsSchema>

/** What a page may read of a response besides the simple headers. */
const EXPOSED = 'x-request-id, retry-after, content-length'

export class Cors {
  private readonly any: boolean
  private readonly origins: ReadonlySet<string>
  private readonly maxAge: string

  constructor(options: z.output<typeof corsOptionsSchema>) {
    this.any = options.origins.includes('*')
    this.origins = new Set(options.origins)
    this.maxAge = String(options.maxAgeSeconds ?? 600)
  }

  allows(origin: string): boolean {
    return this.any || this.origins.has(origin)
  }

  /** Headers for a response to a request from `origin` (none when it is not listed, so the browser keeps the response from the page). */
  responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    const origin = header(headers, 'origin')
    if (origin === undefined || !this.allows(origin)) return {}
    return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' }
  }

  /** A preflight's answer headers; throws ORIGIN_NOT_ALLOWED for an origin not listed. */
  preflight(headers: IncomingHttpHeaders, methods: readonly string[]): Record<string, string> {
    const origin = header(headers, 'origin')
    if (origin === undefined || !this.allows(origin)) throw new TtsError('ORIGIN_NOT_ALLOWED', `the origin ${origin ?? '(none)'} is not allowed`)
    const asked = header(headers, 'access-control-request-headers')
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': methods.join(', '),
      ...(asked && { 'access-control-allow-headers': asked }),
      'access-control-max-age': this.maxAge,
      vary: 'Origin, Access-Control-Request-Headers',
    }
  }

  /** A WebSocket handshake: a browser's Origin must be listed (clients that are not browsers send none). */
  checkHandshake(headers: IncomingHttpHeaders): void {
    const origin = header(headers, 'origin')
    if (origin !== undefined && !this.allows(origin)) throw new TtsError('ORIGIN_NOT_ALLOWED', `the origin ${origin} is not allowed`)
  }
}
