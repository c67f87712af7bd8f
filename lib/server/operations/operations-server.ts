/**
 * The operations routes on a port of their own (`svc-tts serve --metrics-port`): the metrics and
 * the probes with no key, for a scraper and an orchestrator on a network the API's clients do not
 * reach. Nothing else is served there.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { errorResponse, notFound } from '../responses.js'
import type { TtsService } from '../service.js'

export interface OperationsServer {
  server: Server
  address: AddressInfo
  close(): Promise<void>
}

export async function serveOperations(service: TtsService, port: number, host: string): Promise<OperationsServer> {
  const server = createServer((request, response) => {
    const answer = async (): Promise<{ status: number; type: string; body: string }> => {
      const path = (request.url ?? '/').split('?')[0]
      if (request.method === 'GET' && path === '/metrics' && service.metrics) {
        const { contentType, body } = await service.metrics.scrape()
        return { status: 200, type: contentType, body }
      }
      if (request.method === 'GET' && path === '/healthz') return { status: 200, type: 'application/json', body: JSON.stringify({ status: 'ok' }) }
      if (request.method === 'GET' && path === '/readyz') {
        const state = await service.readiness()
        return { status: state.ready ? 200 : 503, type: 'application/json', body: JSON.stringify(state) }
      }
      const { status, json } = errorResponse(notFound(request.method, request.url))
      return { status, type: 'application/json', body: JSON.stringify(json) }
    }
    answer().then(
      ({ status, type, body }) => response.writeHead(status, { 'content-type': type }).end(body),
      (error: unknown) => {
        const { status, json } = errorResponse(error)
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json))
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return {
    server,
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
