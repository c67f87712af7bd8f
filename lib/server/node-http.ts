/**
 * What the standalone server and the Express router share: reading a bounded body from a
 * node:http request, writing a route's response (streams with backpressure, cancelled when the
 * client goes away), one log line per request, and the WebSocket upgrade with its refusals.
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import { TtsError, type ErrorCode } from '../errors.js'
import type { Dialect } from './dialect.js'
import type { AnyRoute, RouteResponse } from './routes.js'
import { errorResponse, notFound } from './responses.js'
import { type TtsService } from './service.js'
import { loggedPath, matchPath, parseTarget, type Target } from './target.js'
import { turnWrites } from './turn-writes.js'
import { serveWebSocket } from './websocket.js'

/** The body, refused with `tooLarge` (413 PAYLOAD_TOO_LARGE) past `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number, tooLarge: ErrorCode = 'PAYLOAD_TOO_LARGE'): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length
    if (size > limit) throw new TtsError(tooLarge, `the body is larger than ${limit} bytes`)
    parts.push(part)
  }
  return Buffer.concat(parts)
}

/** What is read and thrown away of a refused request's body before its connection is cut. */
const REFUSED_BODY_BYTES = 1024 * 1024
const REFUSED_BODY_MS = 2000

/**
 * A request refused before its body was read: the refusal goes out, then the rest of the body is
 * read and thrown away, up to a bound, so a client still sending a small body reads the refusal
 * and keeps its connection. A body declared past the bound is not read at all (reading it would
 * only make garbage): the refusal is followed by the end of the connection, which is cut after the
 * grace, so a client still sending gets the refusal before the reset. Nothing of a body is kept.
 */
export function discardRefusedBody(request: IncomingMessage, response: ServerResponse): void {
  if (request.readableEnded) return
  const declared = Number(request.headers['content-length'])
  const socket = request.socket
  response.once('finish', () => {
    if (request.readableEnded) return
    const cut = () => socket.destroy()
    const timer = setTimeout(cut, REFUSED_BODY_MS).unref()
    if (declared > REFUSED_BODY_BYTES) {
      // node:http resumes an unconsumed request once its response finishes: stop it reading.
      request.pause()
      socket.pause()
      return void socket.end()
    }
    let discarded = 0
    request.on('data', (part: Buffer) => {
      discarded += part.length
      if (discarded > REFUSED_BODY_BYTES) cut()
    })
    request.once('end', () => clearTimeout(timer))
    request.once('close', () => clearTimeout(timer))
    request.resume()
  })
}

/** During shutdown a finished response also ends its keep-alive connection, so the server can close. */
export function endConnectionIfClosing(service: TtsService, response: ServerResponse): void {
  const socket = response.socket  // detached from the response by the time it finishes
  response.once('finish', () => {
    if (service.isClosing) socket?.end()
  })
}

/** Aborted when the response closes before it finished: the client went away. */
export function clientGone(response: ServerResponse): AbortSignal {
  const controller = new AbortController()
  response.once('close', () => {
    if (!response.writableFinished) controller.abort()
  })
  return controller.signal
}

export async function writeResponse(response: ServerResponse, result: RouteResponse, signal: AbortSignal): Promise<void> {
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, value)
  response.statusCode = result.status
  if ('json' in result) {
    response.setHeader('content-type', 'application/json; charset=utf-8')
    response.end(JSON.stringify(result.json))
    return
  }
  if ('body' in result) {
    response.setHeader('content-length', result.body.length)
    response.end(result.body)
    return
  }
  const holdTurn = turnWrites(response)
  try {
    for await (const part of result.stream) {
      // A full buffer is waited for before the next write, not after this one, and each part is
      // held until the end of this turn of the event loop: the last part then goes out in one
      // system call with the response's end (its terminating chunk), which end() flushes.
      if (response.writableNeedDrain) await once(response, 'drain', { signal })
      holdTurn()
      response.write(part)
    }
    response.end()
  } catch {
    // Cancelled or failed mid-stream: the status is already sent, so the connection is cut.
    response.destroy()
  }
}

/**
 * Runs a route for a node:http request, with the request id header and its log line: the request
 * is admitted (key, version, limits) before its body is read, then its body is read to the route's
 * bound. `parsedBody`: a body the app's own parser read already (express.json()).
 */
export async function serveRoute(service: TtsService, route: AnyRoute, request: IncomingMessage, response: ServerResponse, params: Record<string, string>, parsedBody?: unknown): Promise<void> {
  const started = performance.now()
  const requestId = randomUUID()
  response.setHeader('x-request-id', requestId)
  for (const [name, value] of Object.entries(service.responseHeaders(request.headers))) response.setHeader(name, value)
  const signal = clientGone(response)
  endConnectionIfClosing(service, response)
  let result: RouteResponse
  try {
    const admitted = await service.admit(route, request.headers, params, signal, parseTarget(request.url).query, request.socket.remoteAddress)
    let body: unknown
    try {
      body = route.body === 'stream' ? request : parsedBody !== undefined ? parsedBody : route.body === undefined ? undefined : await readBody(request, admitted.bodyLimit, route.tooLarge)
    } catch (error) {
      admitted.abandon()
      throw error
    }
    result = await admitted.run(body)
  } catch (error) {
    result = errorResponse(error, service.dialectOf(route, request.headers))
    discardRefusedBody(request, response)
  }
  response.once('close', () => {
    service.logRequest({
      request_id: requestId,
      method: route.method,
      path: loggedPath(request.url),
      status: response.statusCode,
      duration_ms: Math.round(performance.now() - started),
      ...('json' in result && result.errorCode !== undefined && { error_code: result.errorCode }),
    })
  })
  await writeResponse(response, result, signal)
}

/** How long a refused upgrade's client has to read the answer and close before its socket is cut. */
const REFUSAL_LINGER_MS = 1000

/**
 * A refused handshake: an HTTP response with the JSON error body, then the socket closes, whether
 * or not the client closes its side (an upgraded socket is no longer the HTTP server's to close,
 * so one left open would hold a shutdown until its client left).
 */
function refuseUpgrade(socket: Duplex, error: unknown, dialect?: Dialect): number {
  const { status, headers, json } = errorResponse(error, dialect)
  const body = JSON.stringify(json)
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'content-type: application/json; charset=utf-8', `content-length: ${Buffer.byteLength(body)}`, 'connection: close']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`)
  const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS)
  socket.once('close', () => clearTimeout(timer))
  return status
}

type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer, url: string, params: Record<string, string>) => void

/** The realtime paths attached to each server (`:name` parameters allowed), all served by one 'upgrade' listener of that server. */
const upgradePaths = new WeakMap<Server, Map<string, UpgradeHandler>>()
/** Servers svc-tts made itself: every upgrade on them is its to answer. */
const ownServers = new WeakSet<Server>()

/**
 * Marks a server as svc-tts's own (the standalone server, `svc-tts serve --framework express`):
 * an upgrade to a path it does not serve is answered 404 whatever else listens for upgrades there
 * (a listener that only watches them, such as a connection cap, must not silence the answer).
 */
export function ownUpgrades(server: Server): void {
  ownServers.add(server)
}

/**
 * The server's one 'upgrade' listener for the paths attached to it. An upgrade to another path is
 * answered 404 (400 for a target that cannot be read) on a server svc-tts owns, and on an app's
 * server when nothing else listens for upgrades; when the app has a WebSocket server of its own,
 * that path may be the app's, so it is left to it.
 */
function pathsOf(server: Server): Map<string, UpgradeHandler> {
  const known = upgradePaths.get(server)
  if (known) return known
  const paths = new Map<string, UpgradeHandler>()
  upgradePaths.set(server, paths)
  const answersOtherPaths = () => ownServers.has(server) || server.listeners('upgrade').every((listener) => listener === dispatch)
  const dispatch = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = request.url ?? '/'
    let target: Target
    try {
      target = parseTarget(url)
    } catch (error) {
      if (answersOtherPaths()) refuseUpgrade(socket, error)
      return
    }
    for (const [path, handler] of paths) {
      const params = matchPath(path, target)
      if (params) return handler(request, socket, head, url, params)
    }
    if (answersOtherPaths()) refuseUpgrade(socket, notFound(request.method, url))
  }
  server.on('upgrade', dispatch)
  return paths
}

/** Accepts each realtime WebSocket of the service at `prefix` + its path on a node:http server. */
export function attachWebSocket(service: TtsService, server: Server, prefix = ''): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: service.maxBodyBytes })
  for (const endpoint of service.realtimeEndpoints) {
    pathsOf(server).set(prefix + endpoint.path, (request, socket, head, url, params) => {
      const started = performance.now()
      const requestId = randomUUID()
      const log = (status: number, error_code?: string) =>
        service.logRequest({ request_id: requestId, method: 'GET', path: loggedPath(url), status, duration_ms: Math.round(performance.now() - started), ...(error_code && { error_code }) })
      const refuse = (error: unknown) => log(refuseUpgrade(socket, error, endpoint.dialect), error instanceof TtsError ? error.code : undefined)
      service.authorizeWebSocket(endpoint, request.headers, url).then(
        (principal) => {
          if (service.isClosing) return refuse(new TtsError('SERVER_CLOSING', 'the server is shutting down'))
          wss.handleUpgrade(request, socket, head, (ws) => {
            log(101)
            serveWebSocket(service, endpoint, principal, { socket: ws, wire: socket }, params, url)
          })
        },
        refuse,
      )
    })
  }
  return wss
}
