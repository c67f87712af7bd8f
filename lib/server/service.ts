/**
 * The framework-neutral service: auth, versions, limits, body parsing, error mapping and
 * shutdown around the route table and the realtime connections. Adapters only translate their
 * framework's request and response to and from these calls.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import type { Engine } from '../engine/engine.js'
import { ERROR_STATUS, TtsError, type ErrorCode } from '../errors.js'
import { DEFAULT_REALTIME_LIMITS, RealtimeConnection, type RealtimeConnectionOptions } from '../realtime/connection.js'
import { parseWith } from '../validation/parse.js'
import type { VoiceQuota } from '../voices/types.js'
import type { ConnectionLimits } from './connections.js'
import { header, SPEC_DIALECT, type Dialect } from './dialect.js'
import { API_KEYS_ENV, KeyStore, type Principal, type Scope } from './keys.js'
import { MemoryLimiter, withKeyLimits, type Limiter } from './limits.js'
import { withUsage } from './usage.js'
import { currentPrincipal, FLOODING, KeyMessageRates } from './realtime-keys.js'
import { errorResponse } from './responses.js'
import { mergeSharedPaths, type AnyRoute, type RouteContext, type RouteResponse } from './routes.js'
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_UPLOADS,
  DEFAULT_QUOTAS,
  DEFAULT_SEND_BUFFER_BYTES,
  DEFAULT_UNREAD_MARGIN_BYTES,
  serviceOptionsSchema,
  type RealtimeOptions,
  type RequestLog,
  type ServiceOptions,
} from './service-options.js'
import { mountDialects } from './dialects/index.js'
import { SPEC_REALTIME, type RealtimeEndpoint } from './realtime-endpoint.js'
import { PLAYGROUND_ROUTES } from './playground/routes.js'
import { parseTarget } from './target.js'
import { TTS_ROUTES } from './tts-routes.js'
import { resolveVersion } from './versions.js'
import { DICTIONARY_ROUTES } from './dictionary-routes.js'
import { VOICE_ROUTES } from './voice-routes.js'
import { bindCallPolicy } from '../engine/call-policy.js'
import { Cors } from './browsers/cors.js'
import { tokenRoutes } from './browsers/token-routes.js'
import { TOKEN_PREFIX, TOKEN_SECRET_ENV, TokenIssuer } from './browsers/tokens.js'
import { ServiceMetrics } from './operations/metrics.js'
import { ServiceObserver, type Observation } from './operations/observer.js'
import { readiness, type EngineState, type Readiness } from './operations/readiness.js'
import { operationsRoutes } from './operations/routes.js'

export interface ServiceInput {
  headers: IncomingHttpHeaders
  /** The raw body, or a value a framework already parsed as JSON. */
  body: Buffer | unknown
  params?: Record<string, string>
  query?: URLSearchParams
  /** Aborted when the client goes away. */
  signal: AbortSignal
}

function parseJson(body: unknown): unknown {
  if (body === undefined || body === null) return undefined
  if (!Buffer.isBuffer(body)) return body
  if (body.length === 0) return undefined
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    throw new TtsError('INVALID_REQUEST', 'the body is not valid JSON')
  }
}

/** The body as the route takes it: parsed and checked by its schema (once), JSON, the bytes, or the stream. */
function routeBody(route: AnyRoute, body: unknown): unknown {
  if (route.body === 'raw') return Buffer.isBuffer(body) ? body : undefined
  if (route.body === 'stream') {
    if (body instanceof Readable) return body
    throw new TtsError('INVALID_REQUEST', 'the body was read before this route could stream it (is a body parser mounted before svc-tts?)')
  }
  if (route.body === undefined || route.body === 'json') return parseJson(body)
  return parseWith(route.body.schema, parseJson(body), route.body.what, route.body.fieldCodes)
}

/**
 * A request past its admission: the checks that need no body passed (key, scope, version,
 * limits), its concurrency slot held. `run` reads nothing more than the body it is given.
 */
export interface AdmittedRequest {
  readonly route: AnyRoute
  /** Largest body to read for it, in bytes. */
  readonly bodyLimit: number
  run(body: unknown): Promise<RouteResponse>
  /** Gives up before running (the body could not be read): frees what admission took. */
  abandon(): void
}

const NO_COUNTERS = { activeTasks: 0, externalBytes: 0, liveStreams: 0, poolThreads: 0, queuedTasks: 0, unreadAudioBytes: 0, espeakInstances: 0, espeakBusyPeak: 0 }

export class TtsService {
  readonly routes: readonly AnyRoute[]
  readonly realtimeEndpoints: readonly RealtimeEndpoint[]
  readonly keys: KeyStore
  readonly limiter: Limiter
  readonly maxBodyBytes: number
  readonly sendBufferBytes: number
  readonly maxConcurrentUploads: number
  readonly quota: VoiceQuota
  readonly connectionLimits: ConnectionLimits
  private uploads = 0
  readonly realtimeLimits: Readonly<RealtimeOptions>
  private readonly log: ((entry: RequestLog) => void) | undefined
  private readonly live = new Set<AbortController>()
  /** Open realtime connections and the key each was opened with. */
  private readonly connections = new Map<RealtimeConnection, Principal>()
  private readonly keyMessages: KeyMessageRates
  private idle: (() => void) | undefined
  private closing = false
  private draining = false
  private loaded: Engine<string> | undefined
  private engineState: EngineState = 'loading'
  /** Settles once the engine is made (or failed to be): rejects with its failure. */
  readonly started: Promise<void>
  readonly metrics: ServiceMetrics | undefined
  private readonly observer: ServiceObserver
  readonly cors: Cors | undefined
  readonly tokens: TokenIssuer

  constructor(options: ServiceOptions) {
    const parsed = parseWith(serviceOptionsSchema, options, 'service options')
    this.started = this.load(parsed.engine)
    this.started.catch(() => {})  // a failure is awaited through `started`, and told by /readyz
    this.keys = parsed.keys instanceof KeyStore ? parsed.keys : parsed.keys ? KeyStore.fromConfig(parsed.keys) : (KeyStore.fromEnv(process.env[API_KEYS_ENV]) ?? new KeyStore())
    this.tokens = new TokenIssuer(this.keys, parsed.tokens?.secret ?? process.env[TOKEN_SECRET_ENV])
    this.cors = parsed.cors && new Cors(parsed.cors)
    const metricsOptions = parsed.metrics === false ? undefined : (parsed.metrics ?? {})
    this.metrics = metricsOptions && new ServiceMetrics({
      counters: () => this.loaded?.counters() ?? NO_COUNTERS,
      requestsInFlight: () => this.live.size,
      webSockets: () => this.connections.size,
      realtimeContexts: () => this.realtimeContexts,
      ready: () => this.loaded !== undefined && !this.draining && !this.closing,
    }, metricsOptions.processMetrics ?? true)
    this.observer = new ServiceObserver(this.metrics)
    this.observer.subscribe()
    const dialects = mountDialects(parsed.dialects)
    const operations = operationsRoutes({ readiness: () => this.readiness(), metrics: this.metrics, metricsPublic: metricsOptions?.public ?? false })
    const served = [...TTS_ROUTES, ...VOICE_ROUTES, ...DICTIONARY_ROUTES, ...operations, ...tokenRoutes(this.tokens, this.keys, parsed.tokens?.playgroundKey), ...dialects.routes, ...(parsed.playground ? PLAYGROUND_ROUTES : []), ...(parsed.routes ?? [])]
    this.routes = this.withPreflights(mergeSharedPaths(served))
    this.realtimeEndpoints = [SPEC_REALTIME, ...dialects.realtime]
    const limiter = withKeyLimits(parsed.limiter ?? new MemoryLimiter(parsed.limits), this.keys)
    this.limiter = parsed.usage ? withUsage(limiter, parsed.usage) : limiter
    this.maxBodyBytes = parsed.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
    this.maxConcurrentUploads = parsed.maxConcurrentUploads ?? DEFAULT_MAX_CONCURRENT_UPLOADS
    this.connectionLimits = parsed.connections ?? {}
    this.quota = {
      voices: parsed.quotas?.voicesPerKey ?? DEFAULT_QUOTAS.voicesPerKey,
      sampleBytes: parsed.quotas?.sampleBytesPerKey ?? DEFAULT_QUOTAS.sampleBytesPerKey,
    }
    this.sendBufferBytes = parsed.sendBufferBytes ?? DEFAULT_SEND_BUFFER_BYTES
    this.realtimeLimits = {
      ...DEFAULT_REALTIME_LIMITS,
      keyMessagesPerSecond: 1000,
      keyMessageBurst: 2000,
      maxUnreadBytes: this.sendBufferBytes + DEFAULT_UNREAD_MARGIN_BYTES,
      ...parsed.realtime,
    }
    if (this.realtimeLimits.maxUnreadBytes < this.sendBufferBytes) {
      // Audio is sent while the buffer holds up to sendBufferBytes: a smaller bound would close every speaking socket.
      throw new TtsError('INVALID_REQUEST', 'invalid service options: realtime.maxUnreadBytes must be at least sendBufferBytes')
    }
    this.keyMessages = new KeyMessageRates(this.realtimeLimits.keyMessagesPerSecond, this.realtimeLimits.keyMessageBurst)
    this.keys.on('change', this.recheckKeys)
    this.log = parsed.log
  }

  /** Any model id: clients' requests are checked at run time. Throws SERVER_STARTING while the engine is being made. */
  get engine(): Engine<string> {
    if (this.loaded) return this.loaded
    if (this.engineState === 'failed') throw new TtsError('ENGINE_CLOSED', 'the engine failed to start')
    throw new TtsError('SERVER_STARTING', 'the server is starting: its models are loading', { extra: { retry_after_seconds: 1 } })
  }

  private async load(engine: Engine<string> | Promise<Engine<string>>): Promise<void> {
    if (!(engine instanceof Promise)) {
      this.loaded = engine
      this.engineState = 'loaded'
      return
    }
    try {
      this.loaded = await engine
      this.engineState = 'loaded'
    } catch (error) {
      this.engineState = 'failed'
      throw error
    }
  }

  get isClosing(): boolean {
    return this.closing
  }

  /** What /readyz answers. */
  readiness(): Promise<Readiness> {
    return readiness({ engineState: () => this.engineState, engine: () => this.loaded, draining: () => this.draining, closing: () => this.closing })
  }

  /**
   * The first step of a graceful shutdown: /readyz turns 503 so that load balancers stop sending
   * traffic, while requests that still come are served as before. close() ends it.
   */
  drain(): void {
    this.draining = true
  }

  /** An OPTIONS route per path answering CORS preflights with that path's methods, when CORS is configured. */
  private withPreflights(routes: AnyRoute[]): AnyRoute[] {
    const cors = this.cors
    if (!cors) return routes
    const methods = new Map<string, string[]>()
    for (const r of routes) methods.set(r.path, [...(methods.get(r.path) ?? []), r.method])
    const preflights = [...methods].map(([path, allowed]): AnyRoute => ({
      method: 'OPTIONS',
      path,
      scope: null,
      versionRequired: false,
      concurrent: false,
      duringShutdown: true,
      handle: async ({ headers }) => ({ status: 204, headers: cors.preflight(headers, allowed), body: Buffer.alloc(0) }),
    }))
    return [...routes, ...preflights]
  }

  /**
   * A synthesis made for a client outside HTTP (the Wyoming server): observed as one request of
   * `route` in `dialect` (counted, timed, traced), the speech of its engine calls made with
   * `signal` counted to it; `within` runs its work with its span active.
   */
  observeSynthesis(route: string, dialect: string, signal: AbortSignal): { within<T>(work: () => T): T; end(code: string): void } {
    const observation = this.observer.begin(dialect.toUpperCase(), route, dialect, {})
    this.observer.bind(observation, signal)
    let ended = false
    return {
      within: (work) => this.observer.within(observation, work),
      end: (code) => {
        if (ended) return
        ended = true
        this.observer.end(observation, code === 'ok' ? 200 : ERROR_STATUS[code as ErrorCode] ?? 500, code)
      },
    }
  }

  /** Headers every response to this request carries (CORS for a listed origin). */
  responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
    return this.cors?.responseHeaders(headers) ?? {}
  }

  /** Live realtime contexts over every connection. */
  get realtimeContexts(): number {
    let count = 0
    for (const connection of this.connections.keys()) count += connection.liveContexts
    return count
  }

  /** HTTP requests still running (a stream counts until its last byte or its cancellation). */
  get requestsInFlight(): number {
    return this.live.size
  }

  bodyLimit(route: AnyRoute): number {
    return route.maxBodyBytes ?? this.maxBodyBytes
  }

  /**
   * The checks a request passes before any of its body is read: the server is open, the version,
   * the key and its scope, the request rate, a concurrency slot, and the length the client declared.
   * Throws the refusal.
   */
  async admit(mounted: AnyRoute, headers: IncomingHttpHeaders, params: Record<string, string>, signal: AbortSignal, query = new URLSearchParams(), remoteAddress?: string): Promise<AdmittedRequest> {
    const route = mounted.choose?.(headers) ?? mounted
    const dialect = route.dialect ?? SPEC_DIALECT
    const observation = this.observer.begin(route.method, route.path, dialect.name, headers)
    try {
      return await this.admitObserved(route, dialect, observation, headers, params, signal, query, remoteAddress)
    } catch (error) {
      const refusal = errorResponse(error, dialect)
      this.metrics?.refused(refusal.errorCode)
      this.observer.end(observation, refusal.status, refusal.errorCode)
      throw error
    }
  }

  private async admitObserved(route: AnyRoute, dialect: Dialect, observation: Observation, headers: IncomingHttpHeaders, params: Record<string, string>, signal: AbortSignal, query: URLSearchParams, remoteAddress: string | undefined): Promise<AdmittedRequest> {
    if (this.closing && !route.duringShutdown) throw new TtsError('SERVER_CLOSING', 'the server is shutting down')
    const version = resolveVersion(header(headers, 'version'), route.versionRequired)
    const principal = route.scope ? this.authenticate(dialect.key(headers), route.scope) : undefined
    const bodyLimit = this.bodyLimit(route)
    const declared = Number(header(headers, 'content-length') ?? 0)
    if (declared > bodyLimit) throw new TtsError(route.tooLarge ?? 'PAYLOAD_TOO_LARGE', `the body is larger than ${bodyLimit} bytes`)
    if (principal) await this.limiter.hit(principal.keyId)
    const release = await this.slots(route, principal)
    const controller = new AbortController()
    // The engine calls the route makes carry this signal: their speech is counted to the request, and held to its credential's binding.
    this.observer.bind(observation, controller.signal)
    bindCallPolicy(controller.signal, principal?.bound)
    const onAbort = () => controller.abort(new TtsError('ABORTED', 'the client went away'))
    if (signal.aborted) onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    this.live.add(controller)
    let settled = false
    const settle = (status: number, code: string) => {
      if (settled) return
      settled = true
      release?.()
      signal.removeEventListener('abort', onAbort)
      this.live.delete(controller)
      this.observer.end(observation, status, code)
      if (this.live.size === 0) this.idle?.()
    }
    const service = this
    // The engine is read when a route uses it: the probes and the metrics answer while it loads.
    const contextFor = (body: unknown): RouteContext => ({
      get engine() {
        return service.engine
      },
      body: routeBody(route, body),
      version,
      principal,
      params,
      query,
      headers,
      remoteAddress,
      signal: controller.signal,
      charge: async (characters: number) => {
        if (principal) await this.limiter.charge(principal.keyId, characters)
      },
      owner: principal && { id: principal.keyId, quota: this.quota },
    })
    // The request's work, its stream's pulls included, runs with its span active.
    const within = <T>(work: () => T): T => this.observer.within(observation, work)
    return {
      route,
      bodyLimit,
      abandon: () => settle(499, 'ABORTED'),
      run: async (body) => {
        try {
          const response = await within(() => route.handle(contextFor(body)))
          if (!('stream' in response)) {
            settle(response.status, 'json' in response && response.errorCode !== undefined ? response.errorCode : 'ok')
            return response
          }
          const chunks = response.stream[Symbol.asyncIterator]()
          let pulled = false
          let dropped = false
          // A stream its consumer drops before the first pull never runs its finally: the abort settles it.
          const dropUnpulled = () => {
            if (pulled) return
            dropped = true
            settle(response.status, errorResponse(controller.signal.reason, dialect).errorCode)
            // The request is cancelled: an error from ending its stream has no one left to reach.
            chunks.return?.().catch(() => {})
          }
          if (controller.signal.aborted) dropUnpulled()
          else controller.signal.addEventListener('abort', dropUnpulled, { once: true })
          return {
            ...response,
            stream: (async function* () {
              pulled = true
              // Pulled after its cancellation: it ends as a cancelled stream does, never as a complete empty one.
              if (dropped) throw controller.signal.reason
              let code = 'ABORTED'
              try {
                for (;;) {
                  const next = await within(() => chunks.next())
                  if (next.done) break
                  yield next.value
                }
                code = 'ok'
              } catch (error) {
                code = errorResponse(error, dialect).errorCode
                throw error
              } finally {
                if (code === 'ABORTED') await chunks.return?.()
                settle(response.status, code)
              }
            })(),
          }
        } catch (error) {
          const refusal = errorResponse(error, dialect)
          settle(refusal.status, refusal.errorCode)
          return refusal
        }
      },
    }
  }

  /** The dialect a request to `route` with these headers is answered in (its refusals included). */
  dialectOf(route: AnyRoute, headers: IncomingHttpHeaders): Dialect {
    return (route.choose?.(headers) ?? route).dialect ?? SPEC_DIALECT
  }

  /** The concurrency slots a request holds (its key's, and for an upload one of the server's too); the function gives them back. */
  private async slots(route: AnyRoute, principal: Principal | undefined): Promise<(() => void) | undefined> {
    if (!principal || !route.concurrent) return undefined
    const request = await this.limiter.acquire(principal.keyId, 'requests')
    if (!route.upload) return request
    let upload: () => void
    try {
      if (this.uploads >= this.maxConcurrentUploads) {
        throw new TtsError('TOO_MANY_CONCURRENT_REQUESTS', `the server has ${this.uploads} uploads in flight (limit ${this.maxConcurrentUploads})`, { extra: { retry_after_seconds: 1 } })
      }
      upload = await this.limiter.acquire(principal.keyId, 'uploads')
    } catch (error) {
      request()
      throw error
    }
    this.uploads++
    let released = false
    return () => {
      if (released) return
      released = true
      this.uploads--
      upload()
      request()
    }
  }

  /** Runs one route on a body already read; never throws: a failure is its error response. */
  async handle(route: AnyRoute, input: ServiceInput): Promise<RouteResponse> {
    let admitted: AdmittedRequest
    try {
      admitted = await this.admit(route, input.headers, input.params ?? {}, input.signal, input.query)
    } catch (error) {
      return errorResponse(error, this.dialectOf(route, input.headers))
    }
    return admitted.run(input.body)
  }

  /** The verified key for a request needing `scope`, else 401 INVALID_API_KEY. */
  authenticate(presented: string | undefined, scope: Scope): Principal {
    const principal = presented?.startsWith(TOKEN_PREFIX) ? this.tokens.verify(presented) : this.keys.verify(presented)
    if (!principal) throw new TtsError('INVALID_API_KEY', presented ? 'the API key is not valid' : 'an API key is required')
    if (!principal.scopes.includes(scope)) throw new TtsError('INVALID_API_KEY', `the API key lacks the '${scope}' scope`)
    return principal
  }

  /**
   * Checks a WebSocket handshake to `endpoint` (the version where it asks for one, the key as its
   * dialect presents it); throws the refusal. Undefined when the endpoint takes the key from the
   * first message and the handshake carried none: authorizeRealtimeKey checks it then.
   */
  async authorizeWebSocket(endpoint: RealtimeEndpoint, headers: IncomingHttpHeaders, url: string): Promise<Principal | undefined> {
    try {
      if (this.closing) throw new TtsError('SERVER_CLOSING', 'the server is shutting down')
      void this.engine  // SERVER_STARTING while it loads
      this.cors?.checkHandshake(headers)
      const { query } = parseTarget(url)
      resolveVersion(query.get('version') ?? header(headers, 'version'), endpoint.versionRequired)
      const presented = endpoint.handshakeKey(headers, query)
      if (presented === undefined && endpoint.messageKey) return undefined
      return await this.authorizeRealtimeKey(presented)
    } catch (error) {
      this.metrics?.refused(errorResponse(error).errorCode)
      throw error
    }
  }

  /** A realtime connection's key: valid, with the realtime scope, its message rate not cooling down, a request of the key counted. */
  async authorizeRealtimeKey(presented: string | undefined): Promise<Principal> {
    const principal = this.authenticate(presented, 'text_to_speech')
    this.keyMessages.check(principal.keyId)
    await this.limiter.hit(principal.keyId)
    return principal
  }

  /**
   * A realtime connection for an accepted WebSocket. Its messages count against the key's message
   * rate; each new context is a request of the key (its key checked again, the request rate, a
   * concurrency slot held while it lives), then its text is charged to the key's usage.
   */
  openRealtime(principal: Principal, writable: () => Promise<void> | undefined, endpoint: { path: string; dialect: string } & Pick<RealtimeConnectionOptions, 'parse' | 'flushMarkers'> = { path: SPEC_REALTIME.path, dialect: SPEC_DIALECT.name }): RealtimeConnection {
    const { keyId } = principal
    const { path, dialect, ...translation } = endpoint
    const connection = new RealtimeConnection({
      engine: this.engine,
      ...translation,
      limits: this.realtimeLimits,
      admitMessage: (cost) => this.keyMessages.take(keyId, cost),
      authorize: () => void currentPrincipal(this.keys, principal),
      admitContext: async () => {
        await this.limiter.hit(keyId)
        return this.limiter.acquire(keyId)
      },
      chargeText: (characters) => this.limiter.charge(keyId, characters),
      writable,
      // Each context's speech is observed from its opening, and held to a token's binding.
      contextSignal: () => {
        const { signal } = new AbortController()
        this.observer.bind(this.observer.beginContext(path, dialect), signal)
        bindCallPolicy(signal, principal.bound)
        return signal
      },
    })
    this.connections.set(connection, principal)
    connection.once('close', (error) => {
      if (error && FLOODING.has(error.code)) this.keyMessages.coolDown(keyId)
      if (error) this.metrics?.refused(error.code)
      this.connections.delete(connection)
      if (this.connections.size === 0 && this.live.size === 0) this.idle?.()
    })
    return connection
  }

  /** The key store changed: a connection whose key was revoked, or lost the realtime scope, ends now. */
  private readonly recheckKeys = (): void => {
    this.keyMessages.prune(this.keys)
    for (const [connection, principal] of this.connections) {
      try {
        currentPrincipal(this.keys, principal)
      } catch (error) {
        connection.fail(error as TtsError)
      }
    }
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
    this.keys.off('change', this.recheckKeys)
    for (const connection of this.connections.keys()) void connection.closeConnection()
    const drained = new Promise<void>((resolve) => {
      this.idle = () => {
        if (this.live.size === 0 && this.connections.size === 0) resolve()
      }
      this.idle()
    })
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)))
    await Promise.race([drained, deadline])
    clearTimeout(timer)
    for (const controller of this.live) controller.abort(new TtsError('SERVER_CLOSING', 'the server shut down'))
    for (const connection of this.connections.keys()) connection.destroy()
    this.observer.unsubscribe()
  }
}

export function createTtsService(options: ServiceOptions): TtsService {
  return new TtsService(options)
}
