/**
 * The service mounted on a framework and listening: the standalone node:http server, an Express
 * app or a Fastify app. What `svc-tts serve` runs, and what the tests start.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyReply } from 'fastify'
import { TtsError } from '../errors.js'
import { errorResponse, notFound } from './responses.js'
import { type TtsService } from './service.js'
import { capConnections, serverTimeouts } from './connections.js'
import { clientGone, ownUpgrades, writeResponse } from './node-http.js'
import { closeWithin, createTtsServer, LAST_BYTES_GRACE_MS } from './standalone.js'
import { parseTarget } from './target.js'

export const FRAMEWORKS = ['standalone', 'express', 'fastify'] as const
export type Framework = (typeof FRAMEWORKS)[number]

export interface Listen {
  port: number
  host: string
}

export interface MountedService {
  address: AddressInfo
  /** Stops accepting, lets streams finish for up to `deadlineMs`, cancels the rest, and closes. */
  close(deadlineMs: number): Promise<void>
}

async function listenNode(server: Server, { port, host }: Listen): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  return server.address() as AddressInfo
}

/** A framework's packages, or MISSING_DEPENDENCY naming what to install. */
async function peer<T>(framework: Framework, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw cause
    const packages = framework === 'express' ? 'express' : 'fastify @fastify/websocket'
    throw new TtsError('MISSING_DEPENDENCY', `the ${framework} adapter needs its packages installed: npm install ${packages}`, { cause })
  }
}

export async function mount(service: TtsService, framework: Framework, listen: Listen): Promise<MountedService> {
  if (framework === 'standalone') {
    const server = createTtsServer(service)
    return { address: await server.listen(listen.port, listen.host), close: (deadlineMs) => server.close(deadlineMs) }
  }
  if (framework === 'express') {
    const [{ default: express }, { answerErrors, answerNotFound, createTtsRouter }] = await peer(framework, () => Promise.all([import('express'), import('./express.js')]))
    const app = express()
    const router = createTtsRouter(service)
    app.use(router, answerNotFound, answerErrors)
    // Express's router gives up on a target it cannot read before any middleware runs: read it first.
    const server = createServer(serverTimeouts(service.connectionLimits), (request, response) => {
      try {
        parseTarget(request.url)
      } catch (error) {
        void writeResponse(response, errorResponse(error), clientGone(response))
        return
      }
      app(request, response)
    })
    capConnections(server, service.connectionLimits)
    ownUpgrades(server)
    router.attachWebSocket(server)
    const address = await listenNode(server, listen)
    return {
      address,
      close: async (deadlineMs) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        await router.close(deadlineMs)
        server.closeIdleConnections()
        await closeWithin(closed, server, LAST_BYTES_GRACE_MS)
      },
    }
  }
  const [{ default: Fastify }, { default: ttsPlugin }] = await peer(framework, () => Promise.all([import('fastify'), import('./fastify.js')]))
  const timeouts = serverTimeouts(service.connectionLimits)
  const app = Fastify({
    genReqId: () => randomUUID(),
    requestTimeout: timeouts.requestTimeout!,
    http: timeouts,
    // Targets Fastify's router cannot read (a malformed percent-escape) get the service's JSON body.
    frameworkErrors: (error, request, reply) => {
      const { status, headers, json } = errorResponse(error.statusCode !== undefined && error.statusCode < 500 ? notFound(request.method, request.url) : error)
      void (reply as FastifyReply).code(status).headers(headers).send(json)
    },
  })
  app.setNotFoundHandler((request, reply) => {
    const { status, headers, json } = errorResponse(notFound(request.method, request.url))
    return reply.code(status).headers(headers).send(json)
  })
  capConnections(app.server, service.connectionLimits)
  // The close below waits for live streams itself, before Fastify's, whose preClose hooks run under its pluginTimeout.
  await app.register(ttsPlugin, { service, shutdownDeadlineMs: 0 })
  await app.listen({ port: listen.port, host: listen.host })
  return {
    address: app.server.address() as AddressInfo,
    close: async (deadlineMs) => {
      await service.close(deadlineMs)
      // A connection whose client stopped reading without closing would hold Fastify's close for ever: cut it after the grace, as the other servers do.
      await closeWithin(app.close(), app.server, LAST_BYTES_GRACE_MS)
    },
  }
}
