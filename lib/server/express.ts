/**
 * Express adapter (`svc-tts/express`): a router with every route of the service, and the
 * realtime WebSocket attached to the app's HTTP server.
 *
 *   const tts = createTtsRouter({ engine })
 *   app.use(tts)
 *   tts.attachWebSocket(app.listen(8080))
 */
import type { Server } from 'node:http'
import { Router, type NextFunction, type Request, type Response } from 'express'
import { TtsError } from '../errors.js'
import { attachWebSocket, clientGone, serveRoute, writeResponse } from './node-http.js'
import { errorResponse, notFound } from './responses.js'
import { TtsService } from './service.js'
import { type ServiceOptions } from './service-options.js'

export interface TtsRouter extends Router {
  service: TtsService
  /** Serves the WebSocket on `server`; `prefix` is the path the router is mounted at. */
  attachWebSocket(server: Server, prefix?: string): void
  /** Graceful shutdown of the service's streams and sockets (the app closes its server). */
  close(deadlineMs?: number): Promise<void>
}

/**
 * Errors Express raises on its own (a malformed percent-escape in a path parameter, a body its
 * parser refused) answered with the service's JSON body, never Express's HTML page and its stack.
 */
export function answerErrors(error: unknown, _request: Request, response: Response, next: NextFunction): void {
  if (response.headersSent) return next(error)
  const status = (error as { status?: unknown }).status
  const known = error instanceof TtsError || typeof status !== 'number' || status >= 500 ? error : new TtsError('INVALID_REQUEST', 'the request could not be read')
  void writeResponse(response, errorResponse(known), clientGone(response))
}

/** What nothing in the app serves: a malformed target is a 400, anything else ROUTE_NOT_FOUND, as the other adapters answer. */
export function answerNotFound(request: Request, response: Response): void {
  void writeResponse(response, errorResponse(notFound(request.method, request.originalUrl)), clientGone(response))
}

export function createTtsRouter(options: ServiceOptions | TtsService): TtsRouter {
  const service = options instanceof TtsService ? options : new TtsService(options)
  const router = Router() as TtsRouter
  for (const route of service.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'
    router[method](route.path, (request: Request, response: Response, next: NextFunction) => {
      // Express's routing ignores a trailing slash; a route path that ends with one is for the targets that do (target.ts).
      if (route.path.length > 1 && route.path.endsWith('/') && !request.path.endsWith('/')) return next()
      // An app that parsed JSON already (express.json()) hands over its body; else the raw body is read here.
      const parsed: unknown = request.body
      void serveRoute(service, route, request, response, request.params as Record<string, string>, parsed)
    })
  }
  router.use(answerErrors)
  const closers: (() => void)[] = []
  router.service = service
  router.attachWebSocket = (server, prefix = '') => {
    const wss = attachWebSocket(service, server, prefix)
    closers.push(() => wss.close())
  }
  router.close = async (deadlineMs) => {
    await service.close(deadlineMs)
    for (const close of closers) close()
  }
  return router
}
