/**
 * Express adapter (`svc-tts/express`): a router with every route of the service, and the
 * realtime WebSocket attached to the app's HTTP server.
 *
 *   const tts = createTtsRouter({ engine })
 *   app.use(tts)
 *   tts.attachWebSocket(app.listen(8080))
 */
import type { Server } from 'node:http'
import { Router, type Request, type Response } from 'express'
import { attachWebSocket, serveRoute } from './node-http.js'
import { TtsService, type ServiceOptions } from './service.js'

export interface TtsRouter extends Router {
  service: TtsService
  /** Serves the WebSocket on `server`; `prefix` is the path the router is mounted at. */
  attachWebSocket(server: Server, prefix?: string): void
  /** Graceful shutdown of the service's streams and sockets (the app closes its server). */
  close(deadlineMs?: number): Promise<void>
}

export function createTtsRouter(options: ServiceOptions | TtsService): TtsRouter {
  const service = options instanceof TtsService ? options : new TtsService(options)
  const router = Router() as TtsRouter
  for (const route of service.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'
    router[method](route.path, (request: Request, response: Response) => {
      // An app that parsed JSON already (express.json()) hands over its body; else the raw body is read here.
      const parsed: unknown = request.body
      void serveRoute(service, route, request, response, request.params as Record<string, string>, parsed)
    })
  }
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
