/**
 * The framework-neutral service: auth, versions, limits, body parsing, error mapping and
 * shutdown around the route table and the realtime sessions. Adapters only translate their
 * framework's request and response to and from these calls.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { Engine } from '../engine.js'
import { TtsError, isTtsError } from '../errors.js'
import { RealtimeSession, type RealtimeLimits } from '../realtime/session.js'
import { API_KEYS_ENV, KeyStore, type KeyConfig, type Principal, type Scope } from './keys.js'
import { MemoryLimiter, type Limiter, type LimitOptions } from './limits.js'
import type { Route, RouteResponse } from './routes.js'
import { TTS_ROUTES, VOICE_ROUTES } from './tts-routes.js'
import { resolveVersion } from './versions.js'

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
/** Bytes queued on a WebSocket above which its contexts stop pulling audio. */
export const DEFAULT_SEND_BUFFER_BYTES = 512 * 1024

export interface RequestLog {
  request_id: string
  method: string
  path: string
  status: number
  duration_ms: number
  key_id?: string
  error_code?: string
}

export const serviceOptionsSchema = z.object({
  engine: z.instanceof(Engine),
  /** Keys as secrets or hashes, or a KeyStore; default: the SVC_TTS_API_KEYS environment variable. */
  keys: z.union([z.instanceof(KeyStore), z.array(z.custom<KeyConfig>((v) => typeof v === 'string' || (typeof v === 'object' && v !== null)))]).optional(),
  limiter: z.custom<Limiter>((v) => typeof v === 'object' && v !== null && 'acquire' in v && 'hit' in v && 'charge' in v).optional(),
  limits: z.custom<LimitOptions>((v) => typeof v === 'object' && v !== null).optional(),
  realtime: z
    .object({ maxContexts: z.number().int().min(1), maxContextChars: z.number().int().min(1), idleTimeoutMs: z.number().int().min(1) })
    .partial()
    .optional(),
  maxBodyBytes: z.number().int().min(1).optional(),
  sendBufferBytes: z.number().int().min(1).optional(),
  /** More routes mounted beside the SPEC's text-to-speech and voice operations. */
  routes: z.array(z.custom<Route>((v) => typeof v === 'object' && v !== null && 'handle' in v)).optional(),
  /** One structured entry per request. */
  log: z.custom<(entry: RequestLog) => void>((v) => typeof v === 'function').optional(),
})
export type ServiceOptions = z.input<typeof serviceOptionsSchema>

export interface ServiceInput {
  headers: IncomingHttpHeaders
  /** The raw body, or a value a framework already parsed as JSON. */
  body: Buffer | unknown
  params?: Record<string, string>
  /** Aborted when the client goes away. */
  signal: AbortSignal
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function parseBody(body: unknown): unknown {
  if (body === undefined || body === null) return undefined
  if (!Buffer.isBuffer(body)) return body
  if (body.length === 0) return undefined
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    throw new TtsError('INVALID_REQUEST', 'the body is not valid JSON')
  }
}

/** An error as the response every adapter sends: the status, Retry-After where it applies, and the JSON body. */
export function errorResponse(error: unknown): { status: number; headers: Record<string, string>; json: ReturnType<TtsError['toJSON']> } {
  const known = isTtsError(error) ? error : undefined
  const headers: Record<string, string> = {}
  const retryAfter = known?.extra?.retry_after_seconds
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter)
  if (!known || (known.status >= 500 && known.status !== 503)) {
    // The cause stays in the server's log; the client learns only that it was the server's fault.
    return { status: 500, headers, json: { error_code: known?.code ?? 'INTERNAL_ERROR', message: 'internal server error' } }
  }
  return { status: known.status, headers, json: known.toJSON() }
}

export class TtsService {
  /** Any model id: clients' requests are checked at run time. */
  readonly engine: Engine<string>
  readonly routes: readonly Route[]
  readonly keys: KeyStore
  readonly limiter: Limiter
  readonly maxBodyBytes: number
  readonly sendBufferBytes: number
  private readonly realtimeLimits: Partial<RealtimeLimits>
  private readonly log: ((entry: RequestLog) => void) | undefined
  private readonly live = new Set<AbortController>()
  private readonly sessions = new Set<RealtimeSession>()
  private idle: (() => void) | undefined
  private closing = false

  constructor(options: ServiceOptions) {
    const parsed = serviceOptionsSchema.parse(options)
    this.engine = parsed.engine
    this.routes = [...TTS_ROUTES, ...VOICE_ROUTES, ...(parsed.routes ?? [])]
    this.keys = parsed.keys instanceof KeyStore ? parsed.keys : parsed.keys ? KeyStore.fromConfig(parsed.keys) : (KeyStore.fromEnv(process.env[API_KEYS_ENV]) ?? new KeyStore())
    this.limiter = parsed.limiter ?? new MemoryLimiter(parsed.limits)
    this.maxBodyBytes = parsed.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
    this.sendBufferBytes = parsed.sendBufferBytes ?? DEFAULT_SEND_BUFFER_BYTES
    this.realtimeLimits = parsed.realtime ?? {}
    this.log = parsed.log
  }

  get isClosing(): boolean {
    return this.closing
  }

  /** Live realtime contexts over every connection. */
  get realtimeContexts(): number {
    let count = 0
    for (const session of this.sessions) count += session.liveContexts
    return count
  }

  /** HTTP requests still running (a stream counts until its last byte or its cancellation). */
  get requestsInFlight(): number {
    return this.live.size
  }

  bodyLimit(route: Route): number {
    return route.maxBodyBytes ?? this.maxBodyBytes
  }

  /** Runs one route; never throws: a failure is its error response. */
  async handle(route: Route, input: ServiceInput): Promise<RouteResponse> {
    const controller = new AbortController()
    const onAbort = () => controller.abort(new TtsError('ABORTED', 'the client went away'))
    if (input.signal.aborted) onAbort()
    input.signal.addEventListener('abort', onAbort, { once: true })
    let release: (() => void) | undefined
    const settle = () => {
      release?.()
      input.signal.removeEventListener('abort', onAbort)
      this.live.delete(controller)
      if (this.live.size === 0) this.idle?.()
    }
    this.live.add(controller)
    try {
      if (this.closing) throw new TtsError('SERVER_CLOSING', 'the server is shutting down')
      const version = resolveVersion(header(input.headers, 'version'), route.versionRequired)
      const principal = route.scope ? this.authenticate(header(input.headers, 'x-api-key'), route.scope) : undefined
      if (principal) await this.limiter.hit(principal.keyId)
      if (principal && route.concurrent) release = await this.limiter.acquire(principal.keyId)
      const response = await route.handle({
        engine: this.engine,
        version,
        principal,
        body: route.rawBody ? undefined : parseBody(input.body),
        rawBody: route.rawBody && Buffer.isBuffer(input.body) ? input.body : undefined,
        params: input.params ?? {},
        headers: input.headers,
        signal: controller.signal,
        charge: async (characters) => {
          if (principal) await this.limiter.charge(principal.keyId, characters)
        },
      })
      if (!('stream' in response)) {
        settle()
        return response
      }
      const stream = response.stream
      return {
        ...response,
        stream: (async function* () {
          try {
            yield* stream
          } finally {
            settle()
          }
        })(),
      }
    } catch (error) {
      settle()
      return errorResponse(error)
    }
  }

  /** The verified key for a request needing `scope`, else 401 INVALID_API_KEY. */
  authenticate(presented: string | undefined, scope: Scope): Principal {
    const principal = this.keys.verify(presented)
    if (!principal) throw new TtsError('INVALID_API_KEY', presented ? 'the API key is not valid' : 'an API key is required (x-api-key header)')
    if (!principal.scopes.includes(scope)) throw new TtsError('INVALID_API_KEY', `the API key lacks the '${scope}' scope`)
    return principal
  }

  /** Checks a WebSocket handshake (api_key and version as query parameters or headers); throws the refusal. */
  async authorizeWebSocket(headers: IncomingHttpHeaders, url: string): Promise<Principal> {
    if (this.closing) throw new TtsError('SERVER_CLOSING', 'the server is shutting down')
    const query = new URL(url, 'http://localhost').searchParams
    resolveVersion(query.get('version') ?? header(headers, 'version'), true)
    const principal = this.authenticate(query.get('api_key') ?? header(headers, 'api_key') ?? header(headers, 'x-api-key'), 'text_to_speech')
    await this.limiter.hit(principal.keyId)
    return principal
  }

  /** A realtime session for an accepted WebSocket; each live context holds one of the key's concurrency slots. */
  openRealtime(principal: Principal, writable: () => Promise<void> | undefined): RealtimeSession {
    const session = new RealtimeSession({
      engine: this.engine,
      limits: this.realtimeLimits,
      admitContext: () => this.limiter.acquire(principal.keyId),
      chargeText: (characters) => this.limiter.charge(principal.keyId, characters),
      writable,
    })
    this.sessions.add(session)
    session.once('close', () => {
      this.sessions.delete(session)
      if (this.sessions.size === 0 && this.live.size === 0) this.idle?.()
    })
    return session
  }

  logRequest(entry: RequestLog): void {
    this.log?.(entry)
  }

  /**
   * Graceful shutdown: new requests get 503; realtime connections end their contexts gracefully;
   * whatever is still running after `deadlineMs` is cancelled.
   */
  async close(deadlineMs = 10_000): Promise<void> {
    this.closing = true
    for (const session of this.sessions) void session.closeConnection()
    const drained = new Promise<void>((resolve) => {
      this.idle = () => {
        if (this.live.size === 0 && this.sessions.size === 0) resolve()
      }
      this.idle()
    })
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)))
    await Promise.race([drained, deadline])
    clearTimeout(timer)
    for (const controller of this.live) controller.abort(new TtsError('SERVER_CLOSING', 'the server shut down'))
    for (const session of this.sessions) session.destroy()
  }
}

export function createTtsService(options: ServiceOptions): TtsService {
  return new TtsService(options)
}
