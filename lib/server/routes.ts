/**
 * The route table: each HTTP operation as a framework-neutral handler with the shape of its body.
 * The adapters register every route of the table; the service checks the key, the version and the
 * limits before any body is read, then reads and parses the body once, as the route says.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type * as z from 'zod'
import type { Engine } from '../engine/engine.js'
import type { ErrorCode } from '../errors.js'
import type { VoiceQuota } from '../voices/types.js'
import type { FieldCodes } from '../validation/parse.js'
import type { Dialect } from './dialect.js'
import type { Principal, Scope } from './keys.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

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
  /** The target's query (dialects whose APIs put options there: ElevenLabs' `output_format`). */
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** The client's address as the socket gives it (a proxy's, behind one). */
  remoteAddress: string | undefined
  /** Aborted when the client goes away or the server shuts down. */
  signal: AbortSignal
  /** Counts characters of text against the key's usage limit (throws 429 USAGE_LIMIT_EXCEEDED). */
  charge(characters: number): Promise<void>
  /** Who stores what this request creates (its key), and that key's quota. */
  owner: { id: string; quota: VoiceQuota } | undefined
}

export type RouteResponse =
  | { status: number; headers?: Record<string, string>; json: unknown; /** A refusal's code, for the log line. */ errorCode?: string }
  | { status: number; headers?: Record<string, string>; body: Buffer }
  | { status: number; headers?: Record<string, string>; stream: AsyncIterable<Buffer> }

export interface Route<Body = unknown> {
  method: HttpMethod
  /** Express/Fastify style path: `/voices/:voice_id`. */
  path: string
  /** Whose wire shapes it speaks: how the key comes, how refusals look (default: the SPEC's). */
  dialect?: Dialect
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
  /** Still answered while the server shuts down (the probes, the metrics). */
  duringShutdown?: boolean
  handle(context: RouteContext<Body>): Promise<RouteResponse>
  /** On a path another dialect serves too: whether a request with these headers is this route's (mergeSharedPaths). */
  claims?(headers: IncomingHttpHeaders): boolean
  /** A shared path's pick of the route that serves these headers (made by mergeSharedPaths). */
  choose?(headers: IncomingHttpHeaders): AnyRoute
}

/** A route of the table, whatever its body: each route's handler is typed by its own body above. */
export type AnyRoute = Route<any>  // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The table as the adapters register it: routes of different dialects on one method and path
 * (`GET /v1/models` is OpenAI's and ElevenLabs') become one, which serves each request by the
 * first of them that `claims` its headers, else by the one that claims nothing. They must agree on
 * the body kind, since the adapters register the path once.
 */
export function mergeSharedPaths(routes: readonly AnyRoute[]): AnyRoute[] {
  const groups = new Map<string, AnyRoute[]>()
  for (const r of routes) {
    const key = `${r.method} ${r.path.replace(/:[^/]+/g, ':')}`
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  const bodyKind = (r: AnyRoute) => (typeof r.body === 'object' ? 'schema' : r.body)
  return [...groups.values()].map((group) => {
    if (group.length === 1) return group[0]!
    const fallbacks = group.filter((r) => !r.claims)
    const [fallback] = fallbacks
    if (!fallback || fallbacks.length > 1 || group.some((r) => r.path !== fallback.path || bodyKind(r) !== bodyKind(fallback))) {
      throw new TypeError(`routes sharing ${fallback?.method ?? group[0]!.method} ${group[0]!.path} need the same path, the same body kind and exactly one that claims no request`)
    }
    const claimants = group.filter((r) => r.claims)
    const maxBodyBytes = group.some((r) => r.maxBodyBytes === undefined) ? undefined : Math.max(...group.map((r) => r.maxBodyBytes!))
    return {
      ...fallback,
      maxBodyBytes,
      choose: (headers: IncomingHttpHeaders) => claimants.find((r) => r.claims!(headers)) ?? fallback,
    }
  })
}

/** A route with its body type checked against its handler, for a table of routes of different bodies. */
export function route<Body>(definition: Route<Body>): AnyRoute {
  return definition
}
