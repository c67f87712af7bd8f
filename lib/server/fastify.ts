/**
 * Fastify adapter (`svc-tts/fastify`), by Fastify's plugin conventions: options validated at
 * registration, the service exposed as the `tts` decorator, the routes and the WebSocket in an
 * encapsulated child scope under the `prefix` option (its own body parser and error handler, so
 * the app's stay as they are), and live streams ended gracefully in preClose, cancelled in onClose.
 *
 *   await app.register(ttsPlugin, { engine })
 */
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { parseWith } from '../validation/parse.js'
import type { Principal } from './keys.js'
import type { AnyRoute, RouteResponse } from './routes.js'
import { errorResponse, notFound } from './responses.js'
import { serviceOptionsSchema, type ServiceOptions } from './service-options.js'
import { TtsService, type AdmittedRequest } from './service.js'
import { loggedPath, parseTarget } from './target.js'
import { discardRefusedBody, endConnectionIfClosing } from './node-http.js'
import { serveWebSocket } from './websocket.js'

export type TtsPluginOptions = (ServiceOptions | { service: TtsService }) & {
  /** How long `app.close()` lets live streams finish before cancelling them (default 10 s, or 1 s less than the app's pluginTimeout when that is shorter). */
  shutdownDeadlineMs?: number
  /** Where the routes and the WebSocket are mounted (default: the app's root). */
  prefix?: string
}

declare module 'fastify' {
  interface FastifyInstance {
    tts: TtsService
  }
}

const DEFAULT_SHUTDOWN_DEADLINE_MS = 10_000
/** What is left of the app's pluginTimeout once live streams are cancelled, for the rest of preClose. */
const PLUGIN_TIMEOUT_MARGIN_MS = 1000

/** How long a refused upgrade's client has to read the answer and close before its socket is cut. */
const REFUSED_UPGRADE_LINGER_MS = 1000

const pluginFields = {
  shutdownDeadlineMs: z.number().int().min(0).optional(),
  prefix: z.string().regex(/^\/[^?#]*$/, 'prefix must be a path such as /tts').optional(),
}
const pluginOptionsSchema = z.union([z.object({ service: z.instanceof(TtsService), ...pluginFields }), serviceOptionsSchema.extend(pluginFields)])

/** @fastify/websocket, loaded when the plugin registers: a missing peer is MISSING_DEPENDENCY naming it. */
type WebSocketPluginOptions = { options?: { maxPayload?: number }; errorHandler?: (error: Error & { code?: string }, socket: { terminate(): void }) => void }

async function loadWebSocketPlugin(): Promise<FastifyPluginAsync<WebSocketPluginOptions>> {
  try {
    return (await import('@fastify/websocket')).default as unknown as FastifyPluginAsync<WebSocketPluginOptions>
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw cause
    throw new TtsError('MISSING_DEPENDENCY', 'the Fastify plugin needs @fastify/websocket: npm install @fastify/websocket', { cause })
  }
}

/**
 * How long preClose lets live streams finish. Fastify fails `close()` when a preClose hook outlasts
 * the app's pluginTimeout, so the wait ends PLUGIN_TIMEOUT_MARGIN_MS before it: the default
 * (10 s) shortens to fit, and a deadline asked for that cannot fit is refused at registration.
 */
function closeDeadline(asked: number | undefined, pluginTimeoutMs: number): number {
  const longest = pluginTimeoutMs > 0 ? Math.max(0, pluginTimeoutMs - PLUGIN_TIMEOUT_MARGIN_MS) : Infinity
  if (asked === undefined) return Math.min(DEFAULT_SHUTDOWN_DEADLINE_MS, longest)
  if (asked > longest) {
    throw new TtsError('INVALID_REQUEST', `invalid Fastify plugin options: shutdownDeadlineMs (${asked}) must end ${PLUGIN_TIMEOUT_MARGIN_MS} ms before the app's pluginTimeout (${pluginTimeoutMs}); lower it or raise pluginTimeout`)
  }
  return asked
}

/** Fastify's own errors (body too large, unreadable body) as the service's error body. */
function frameworkError(error: { statusCode?: number; message: string }): TtsError {
  if (error.statusCode === 413) return new TtsError('PAYLOAD_TOO_LARGE', 'the body is too large')
  if (error.statusCode !== undefined && error.statusCode < 500) return new TtsError('INVALID_REQUEST', error.message)
  return new TtsError('INTERNAL_ERROR', error.message)
}

/**
 * An upgrade answered over HTTP (404 for a path no WebSocket route serves, a refused handshake)
 * leaves its socket outside the HTTP server's keeping: it is ended, and cut if its client keeps it
 * open, so that no shutdown waits on it.
 */
function endRefusedUpgrade(socket: Socket | null): void {
  if (!socket || socket.destroyed) return
  socket.end()
  const timer = setTimeout(() => socket.destroy(), REFUSED_UPGRADE_LINGER_MS)
  socket.once('close', () => clearTimeout(timer))
}

function send(reply: FastifyReply, result: RouteResponse): FastifyReply {
  reply.code(result.status).headers(result.headers ?? {})
  if ('json' in result) return reply.send(result.json)
  if ('body' in result) return reply.send(result.body)
  return reply.send(Readable.from(result.stream, { objectMode: false }))
}

async function ttsPlugin(fastify: FastifyInstance, rawOptions: TtsPluginOptions): Promise<void> {
  const options = parseWith(pluginOptionsSchema, rawOptions, 'Fastify plugin options')
  const websocket = await loadWebSocketPlugin()
  const { shutdownDeadlineMs, prefix: rawPrefix, ...serviceOptions } = options
  const deadlineMs = closeDeadline(shutdownDeadlineMs, fastify.initialConfig.pluginTimeout ?? 0)
  const service = 'service' in serviceOptions ? serviceOptions.service : new TtsService(serviceOptions)
  fastify.decorate('tts', service)
  fastify.addHook('preClose', async () => service.close(deadlineMs))
  fastify.addHook('onClose', async () => service.close(0))
  fastify.addHook('onResponse', async (request, reply) => {
    if (request.headers.upgrade !== undefined && /\bupgrade\b/i.test(request.headers.connection ?? '')) endRefusedUpgrade(reply.raw.socket)
  })

  let prefix = rawPrefix
  while (prefix?.endsWith('/')) prefix = prefix.slice(0, -1)
  await fastify.register(async (scope) => {
    if (!scope.hasDecorator('websocketServer')) {
      // On a protocol error (a frame past maxPayload, invalid UTF-8) ws closes the connection itself
      // with the code it calls for (1009, 1007), and the session's close cuts a peer that does not
      // answer; the plugin's default handler would cut it at once, before that close frame is out.
      const errorHandler: WebSocketPluginOptions['errorHandler'] = (error, socket) => {
        if (!error.code?.startsWith('WS_ERR_')) socket.terminate()
      }
      await scope.register(websocket, { options: { maxPayload: service.maxBodyBytes }, errorHandler })
    }
    scope.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id)
      reply.headers(service.responseHeaders(request.headers))
    })
    scope.addHook('onResponse', async (request, reply) => {
      service.logRequest({
        request_id: String(request.id),
        method: request.method,
        path: loggedPath(request.url),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime),
      })
    })
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    scope.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
      const route = (request.routeOptions.config as { route?: AnyRoute }).route
      const { status, headers, json } = errorResponse(frameworkError(error), route && service.dialectOf(route, request.headers))
      return reply.code(status).headers(headers).send(json)
    })
    // Under a prefix of its own, what the plugin does not serve is its to answer; at the root, the app's 404 stays the app's.
    if (prefix) {
      scope.setNotFoundHandler((request, reply) => {
        const { status, headers, json } = errorResponse(notFound(request.method, request.url))
        return reply.code(status).headers(headers).send(json)
      })
    }

    // Each request is admitted (key, version, limits) in onRequest, before Fastify reads its body.
    const admissions = new WeakMap<FastifyRequest, AdmittedRequest>()
    const abandon = async (request: FastifyRequest) => {
      admissions.get(request)?.abandon()
      admissions.delete(request)
    }
    scope.addHook('onResponse', abandon)
    scope.addHook('onRequestAbort', abandon)
    const register = (into: FastifyInstance, route: AnyRoute) =>
      into.route({
        method: route.method,
        url: route.path,
        bodyLimit: service.bodyLimit(route),
        config: { route },
        onRequest: async (request, reply) => {
          const controller = new AbortController()
          reply.raw.once('close', () => {
            if (!reply.raw.writableFinished) controller.abort()
          })
          try {
            admissions.set(request, await service.admit(route, request.headers, request.params as Record<string, string>, controller.signal, parseTarget(request.url).query, request.socket.remoteAddress))
          } catch (error) {
            const { status, headers, json } = errorResponse(error, service.dialectOf(route, request.headers))
            discardRefusedBody(request.raw, reply.raw)
            return reply.code(status).headers(headers).send(json)
          }
        },
        handler: async (request, reply) => {
          const admitted = admissions.get(request)!
          admissions.delete(request)
          endConnectionIfClosing(service, reply.raw)
          return send(reply, await admitted.run(request.body))
        },
      })
    for (const route of service.routes.filter((r) => r.body !== 'stream')) register(scope, route)
    // Routes that stream their body get it unread: their own parser reads it to its bounds.
    await scope.register(async (streaming) => {
      streaming.removeAllContentTypeParsers()
      streaming.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
      for (const route of service.routes.filter((r) => r.body === 'stream')) register(streaming, route)
    })

    for (const endpoint of service.realtimeEndpoints) {
      const principals = new WeakMap<FastifyRequest, Principal | undefined>()
      scope.route({
        method: 'GET',
        url: endpoint.path,
        // Refusals happen before the upgrade, so they are plain HTTP responses with the dialect's JSON body.
        preValidation: async (request, reply) => {
          try {
            principals.set(request, await service.authorizeWebSocket(endpoint, request.headers, request.url))
          } catch (error) {
            const { status, headers, json } = errorResponse(error, endpoint.dialect)
            return reply.code(status).headers(headers).send(json)
          }
        },
        handler: (_request, reply) => reply.code(426).send(errorResponse(new TtsError('INVALID_REQUEST', 'this path takes a WebSocket upgrade'), endpoint.dialect).json),
        wsHandler: (socket, request) => {
          // An upgrade never reaches onResponse: its line is logged here, as the other adapters log theirs.
          service.logRequest({ request_id: String(request.id), method: 'GET', path: loggedPath(request.url), status: 101, duration_ms: 0 })
          serveWebSocket(service, endpoint, principals.get(request), { socket, wire: request.raw.socket }, request.params as Record<string, string>, request.url)
        },
      })
    }
  }, prefix ? { prefix } : {})
}

// What fastify-plugin sets, set here so that the plugin loads without that package: it decorates
// the app it is registered on (skip-override), under its own name, for Fastify 5.
Object.assign(ttsPlugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'svc-tts',
  [Symbol.for('plugin-meta')]: { fastify: '5.x', name: 'svc-tts' },
})

export default ttsPlugin
