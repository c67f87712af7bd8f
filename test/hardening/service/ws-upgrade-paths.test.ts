// Issue 20, case 20: a WebSocket upgrade to a path nothing serves got no answer at all (standalone
// and Express), and one such client held SIGTERM's shutdown past its 10 s deadline until it left.
// A server svc-tts owns answers it 404 with the JSON body; on an app's own server, with another
// WebSocket server of the app listening, the path is left to the app. Shutdown waits on no upgrade.
import { mkdtempSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { createTtsRouter } from '../../../lib/server/express.js'
import { createTtsServer } from '../../../lib/server/standalone.js'
import { testEngine } from '../../helpers/engine.js'
import { rawWebSocket } from '../../helpers/raw-websocket.js'
import { rawRequest, serveListening, type Listening } from '../../helpers/served.js'
import { ADAPTERS, KEY, TEST_KEYS, WsClient } from '../../helpers/server.js'

const SERVE_KEY = 'sk_test_hardening_upgrade_key_0123456789'
const PATH = '/text_to_speech/websocket/ws'
const upgrade = (target: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`

describe.each(ADAPTERS)('WebSocket upgrades to other paths on svc-tts serve --framework %s', (framework) => {
  let server: Listening
  beforeAll(async () => {
    server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-upgrade-')), framework, { env: { SVC_TTS_API_KEYS: SERVE_KEY } })
  })
  afterAll(async () => {
    if (server.child.exitCode === null) await server.stop(15_000)
  }, 20_000)

  it('answers an upgrade to an unknown path 404 ROUTE_NOT_FOUND with the JSON body', async () => {
    for (const target of ['/nope', `/text_to_speech/websocket/wsx?api_key=${SERVE_KEY}&version=v1`, '/text_to_speech']) {
      const response = await rawRequest(server.port, upgrade(target), 3000)
      expect(response.status).toBe(404)
      expect(JSON.parse(response.body)).toMatchObject({ error_code: 'ROUTE_NOT_FOUND' })
    }
  })

  it('exits within its deadline after SIGTERM while clients hold an unanswered upgrade and an unanswered close', async () => {
    // One sends an upgrade to an unknown path and never closes its side; one opens the realtime socket and never answers a close.
    const lingering = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true })
    lingering.on('error', () => {})
    lingering.write(upgrade('/somewhere/else'))
    const deaf = await rawWebSocket(server.port, `${PATH}?api_key=${SERVE_KEY}&version=v1`)
    await sleep(200)
    const started = performance.now()
    const code = await server.stop(15_000)
    const elapsed = performance.now() - started
    lingering.destroy()
    deaf.socket.destroy()
    expect(code).toBe(0)
    expect(elapsed).toBeLessThan(10_000)
  }, 20_000)
})

const engine = await testEngine()

/** An app's own server with the svc-tts router attached to it, listening on loopback. */
async function appServer(setUp: (server: Server) => void): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const router = createTtsRouter({ engine, keys: TEST_KEYS })
  const server = createServer((_request, response) => response.writeHead(418).end())
  setUp(server)
  router.attachWebSocket(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    server,
    port,
    close: async () => {
      await router.close(0)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe('the standalone server', () => {
  it('answers an unknown path 404 even when something else watches its upgrades', async () => {
    const tts = createTtsServer({ engine, keys: TEST_KEYS })
    let watched = 0
    tts.server.on('upgrade', () => watched++)  // as a connection cap counting upgraded sockets does
    const { port } = await tts.listen(0)
    try {
      const response = await rawRequest(port, upgrade('/nope'), 3000)
      expect([response.status, JSON.parse(response.body).error_code, watched]).toEqual([404, 'ROUTE_NOT_FOUND', 1])
    } finally {
      await tts.close(0)
    }
  })
})

describe('attachWebSocket on an app\'s own server', () => {
  it('answers an unknown path 404 when nothing else listens for upgrades', async () => {
    const app = await appServer(() => {})
    try {
      const response = await rawRequest(app.port, upgrade('/nope'), 3000)
      expect([response.status, JSON.parse(response.body).error_code]).toEqual([404, 'ROUTE_NOT_FOUND'])
    } finally {
      await app.close()
    }
  })

  it('serves two routers attached at two prefixes, and answers the other paths once', async () => {
    const second = createTtsRouter({ engine, keys: TEST_KEYS })
    const app = await appServer((server) => second.attachWebSocket(server, '/second'))
    try {
      for (const prefix of ['', '/second']) (await WsClient.connect(`ws://127.0.0.1:${app.port}${prefix}${PATH}?api_key=${KEY}&version=v1`)).socket.close()
      const response = await rawRequest(app.port, upgrade('/third/text_to_speech/websocket/ws'), 3000)
      expect([response.status, JSON.parse(response.body).error_code]).toEqual([404, 'ROUTE_NOT_FOUND'])
    } finally {
      await second.close(0)
      await app.close()
    }
  })

  it("leaves other paths to the app's own WebSocket server, and still serves its own", async () => {
    const theirs = new WebSocketServer({ noServer: true })
    theirs.on('connection', (socket) => socket.send('hello from the app'))
    // The app serves /app/ws and answers the other paths it knows nothing of, a moment later, itself.
    const app = await appServer((server) =>
      server.on('upgrade', (request, socket, head) => {
        if (request.url === '/app/ws') theirs.handleUpgrade(request, socket, head, (ws) => theirs.emit('connection', ws, request))
        else if (!request.url?.startsWith('/text_to_speech/')) setTimeout(() => socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 3\r\nconnection: close\r\n\r\napp'), 50)
      }),
    )
    try {
      const client = new WebSocket(`ws://127.0.0.1:${app.port}/app/ws`)
      const greeting = await new Promise<WebSocket.RawData>((resolve, reject) => {
        client.once('message', (data) => resolve(data))
        client.once('error', reject)
      })
      expect(String(greeting)).toBe('hello from the app')
      client.close()
      const ours = await WsClient.connect(`ws://127.0.0.1:${app.port}${PATH}?api_key=${KEY}&version=v1`)
      ours.socket.close()
      // The app's answer, not a 404 of svc-tts's.
      expect(await rawRequest(app.port, upgrade('/nope'), 3000)).toMatchObject({ status: 400, body: 'app' })
    } finally {
      theirs.close()
      await app.close()

    }
  })
})
