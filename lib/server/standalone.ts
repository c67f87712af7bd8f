/** The service on a bare node:http server (what `svc-tts serve` runs by default). */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { capConnections, serverTimeouts } from './connections.js'
import { attachWebSocket, ownUpgrades, serveRoute, writeResponse, clientGone } from './node-http.js'
import { errorResponse, notFound } from './responses.js'
import { TtsService } from './service.js'
import { type ServiceOptions } from './service-options.js'
import { matchPath, parseTarget, type Target } from './target.js'

export interface TtsServer {
  server: Server
  service: TtsService
  listen(port?: number, host?: string): Promise<AddressInfo>
  /** Stops accepting, lets streams finish for up to `deadlineMs`, cancels the rest, and closes. */
  close(deadlineMs?: number): Promise<void>
}

/** How long finished responses get to flush their last bytes before connections are cut. */
export const LAST_BYTES_GRACE_MS = 1000

export async function closeWithin(closed: Promise<void>, server: Server, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))])
  clearTimeout(timer)
  server.closeAllConnections()
  await closed
}

export function createTtsServer(options: ServiceOptions | TtsService): TtsServer {
  const service = options instanceof TtsService ? options : new TtsService(options)
  const server = createServer(serverTimeouts(service.connectionLimits), (request, response) => {
    let target: Target
    try {
      target = parseTarget(request.url)
    } catch (error) {
      void writeResponse(response, errorResponse(error), clientGone(response))
      return
    }
    for (const route of service.routes) {
      if (route.method !== request.method) continue
      const params = matchPath(route.path, target)
      if (params) {
        void serveRoute(service, route, request, response, params)
        return
      }
    }
    void writeResponse(response, errorResponse(notFound(request.method, request.url)), clientGone(response))
  })
  capConnections(server, service.connectionLimits)
  ownUpgrades(server)
  const wss = attachWebSocket(service, server)
  return {
    server,
    service,
    listen: (port = 8080, host = '127.0.0.1') =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => resolve(server.address() as AddressInfo))
      }),
    close: async (deadlineMs = 10_000) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      await service.close(deadlineMs)
      wss.close()
      server.closeIdleConnections()
      await closeWithin(closed, server, LAST_BYTES_GRACE_MS)
    },
  }
}
