/** The service on a bare node:http server (what `svc-tts serve` runs by default). */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { TtsError } from '../errors.js'
import { attachWebSocket, serveRoute, writeResponse, clientGone } from './node-http.js'
import type { Route } from './routes.js'
import { errorResponse, TtsService, type ServiceOptions } from './service.js'

export interface TtsServer {
  server: Server
  service: TtsService
  listen(port?: number, host?: string): Promise<AddressInfo>
  /** Stops accepting, lets streams finish for up to `deadlineMs`, cancels the rest, and closes. */
  close(deadlineMs?: number): Promise<void>
}

/** Matches `/voices/:voice_id` style paths segment by segment. */
function matcher(route: Route): (path: string) => Record<string, string> | undefined {
  const pattern = route.path.split('/').filter(Boolean)
  return (path) => {
    const segments = path.split('/').filter(Boolean)
    if (segments.length !== pattern.length) return undefined
    const params: Record<string, string> = {}
    for (let i = 0; i < pattern.length; i++) {
      const expected = pattern[i]!
      if (expected.startsWith(':')) params[expected.slice(1)] = decodeURIComponent(segments[i]!)
      else if (expected !== segments[i]) return undefined
    }
    return params
  }
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
  const table = service.routes.map((route) => ({ route, match: matcher(route) }))
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    for (const { route, match } of table) {
      if (route.method !== request.method) continue
      const params = match(path)
      if (params) {
        void serveRoute(service, route, request, response, params)
        return
      }
    }
    void writeResponse(response, errorResponse(new TtsError('ROUTE_NOT_FOUND', `no operation ${request.method} ${path}`)), clientGone(response))
  })
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
