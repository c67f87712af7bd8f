/**
 * The route table: each HTTP operation as a framework-neutral handler with the shape of its body.
 * The adapters register every route of the table; the service checks the key, the version and the
 * limits before any body is read, then reads and parses the body once, as the route says.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { z } from 'zod'
import type { Engine } from '../engine/engine.js'
import type { ErrorCode } from '../errors.js'
import type { VoiceQuota } from '../voices/types.js'
import type { FieldCodes } from '../validation/parse.js'
import type { Principal, Scope } from './keys.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * A route's body: JSON checked by a schema (the handler gets what it parsed, which the engine then
 * trusts as it is), JSON as it came ('json', for routes that check it themselves), the bytes
 * themselves ('raw'), or the body's stream, unread ('stream': the handler reads it to its own
 * bounds, e.g. a multipart upload). A route without `body` reads none.
 */
export type RouteBody<Body> = { schema: z.core.$ZodType<Body>; what: string; fieldCodes?: FieldCodes } | 'json' | 'raw' | 'stream'

export interface RouteContext<Body = unknown> {
  engine: Engine<string>
  version: string
  /** The verified key (undefined on public routes). */
  principal: Principal | undefined
  /** The body as the route's `body` says: parsed and checked, JSON, or raw bytes; undefined when none came. */
  body: Body
  /** Path parameters (`/voices/:voice_id` gives `params.voice_id`). */
  params: Record<string, string>
  headers: IncomingHttpHeaders
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal
  /** Counts characters of text against the key's usage limit (throws 429 USAGE_LIMIT_EXCEEDED). */
  charge(characters: number): Promise<void>
  /** Who stores what this request creates (its key), and that key's quota. */
  owner: { id: string; quota: VoiceQuota } | undefined
}

export type RouteResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers?: Record<string, string>; body: Buffer }
  | { status: number; headers?: Record<string, string>; stream: AsyncIterable<Buffer> }

export interface Route<Body = unknown> {
  method: HttpMethod
  /** Express/Fastify style path: `/voices/:voice_id`. */
  path: string
  /** The scope a key needs; null makes the route public (no key). */
  scope: Scope | null
  /** Whether the `version` header must be present (it is always checked when present). */
  versionRequired: boolean
  /** Whether the request holds a concurrency slot of its key while it runs (synthesis does). */
  concurrent: boolean
  body?: RouteBody<Body>
  /** Largest accepted body, in bytes (default: the service's maxBodyBytes). */
  maxBodyBytes?: number
  /** The code of a body past maxBodyBytes (default PAYLOAD_TOO_LARGE). */
  tooLarge?: ErrorCode
  /** The request holds an upload slot too (its key's, and one of the server's). */
  upload?: boolean
  handle(context: RouteContext<Body>): Promise<RouteResponse>
}

/** A route of the table, whatever its body: each route's handler is typed by its own body above. */
export type AnyRoute = Route<any>  // eslint-disable-line @typescript-eslint/no-explicit-any

/** A route with its body type checked against its handler, for a table of routes of different bodies. */
export function route<Body>(definition: Route<Body>): AnyRoute {
  return definition
}
