/**
 * The route table: each HTTP operation as a framework-neutral handler. The adapters register
 * every route of the table, so more operations (the voice management ones) mount by adding
 * routes to it.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Engine } from '../engine.js'
import type { Principal, Scope } from './keys.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface RouteContext {
  engine: Engine<string>
  version: string
  /** The verified key (undefined on public routes). */
  principal: Principal | undefined
  /** The parsed JSON body (undefined for a GET, an empty body, or a raw-body route). */
  body: unknown
  /** The body as received, on routes that read it themselves (`rawBody: true`, e.g. multipart). */
  rawBody: Buffer | undefined
  /** Path parameters (`/voices/:voice_id` gives `params.voice_id`). */
  params: Record<string, string>
  headers: IncomingHttpHeaders
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal
  /** Counts characters of text against the key's usage limit (throws 429 USAGE_LIMIT_EXCEEDED). */
  charge(characters: number): Promise<void>
}

export type RouteResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers?: Record<string, string>; body: Buffer }
  | { status: number; headers?: Record<string, string>; stream: AsyncIterable<Buffer> }

export interface Route {
  method: HttpMethod
  /** Express/Fastify style path: `/voices/:voice_id`. */
  path: string
  /** The scope a key needs; null makes the route public (no key). */
  scope: Scope | null
  /** Whether the `version` header must be present (it is always checked when present). */
  versionRequired: boolean
  /** Whether the request holds a concurrency slot of its key while it runs (synthesis does). */
  concurrent: boolean
  /** The handler reads `rawBody` itself; the body is not parsed as JSON. */
  rawBody?: boolean
  /** Largest accepted body, in bytes (default: the service's maxBodyBytes). */
  maxBodyBytes?: number
  handle(context: RouteContext): Promise<RouteResponse>
}
