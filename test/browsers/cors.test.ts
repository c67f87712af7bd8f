import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const APP = 'http://app.example:3000'
const EVIL = 'http://evil.example'
const body = JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: 'Hello from a page.', voice: { mode: 'id', id: voiceId('Sarah') } })
const wsPath = `/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`

function preflight(server: Running, origin: string, path = '/text_to_speech'): Promise<Response> {
  return fetch(`${server.base}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key,version' } })
}

async function handshake(server: Running, origin?: string): Promise<unknown> {
  return WsClient.connect(`${server.ws}${wsPath}`, origin ? { origin } : {}).then(
    (client) => {
      client.socket.close()
      return 'open'
    },
    (error: { status?: number; body?: { error_code?: string } }) => [error.status, error.body?.error_code],
  )
}

describe.each(ADAPTERS)('CORS on %s', (adapter) => {
  let server: Running
  let closed: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, cors: { origins: [`${APP}/`] } })
    closed = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(async () => {
    await server.close()
    await closed.close()
  })

  it('answers a listed origin\'s preflight with the path\'s methods and the headers asked, and refuses another origin\'s', async () => {
    const allowed = await preflight(server, APP)
    expect(allowed.status).toBe(204)
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP)
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST')
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type,x-api-key,version')
    expect(allowed.headers.get('access-control-max-age')).toBe('600')
    const voices = await preflight(server, APP, '/voices/some-id')
    expect(voices.headers.get('access-control-allow-methods')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'PUT'])

    const refused = await preflight(server, EVIL)
    expect(refused.status).toBe(403)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    expect(((await refused.json()) as { error_code: string }).error_code).toBe('ORIGIN_NOT_ALLOWED')
  })

  it('lets a listed origin read responses, refusals included, and gives another origin nothing to read', async () => {
    const spoken = await fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', 'x-api-key': KEY }, body })
    expect(spoken.status).toBe(200)
    expect(spoken.headers.get('access-control-allow-origin')).toBe(APP)
    expect(spoken.headers.get('access-control-expose-headers')).toContain('x-request-id')
    expect(spoken.headers.get('vary')).toContain('Origin')
    await spoken.arrayBuffer()
    const refused = await fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', 'x-api-key': 'sk_wrong' }, body })
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([401, APP])
    await refused.arrayBuffer()
    const other = await fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { origin: EVIL, 'content-type': 'application/json', 'x-api-key': KEY }, body })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    await other.arrayBuffer()
  })

  it('checks a WebSocket handshake\'s Origin against the same list (clients that send none are not browsers)', async () => {
    expect(await handshake(server, APP)).toBe('open')
    expect(await handshake(server)).toBe('open')
    expect(await handshake(server, EVIL)).toEqual([403, 'ORIGIN_NOT_ALLOWED'])
  })

  it('is off unless configured: no preflight route, no CORS headers, any Origin may open a WebSocket', async () => {
    const answer = await preflight(closed, APP)
    // Express answers OPTIONS itself (200 with Allow) where no route does; the others 404.
    expect(answer.status).toBe(adapter === 'express' ? 200 : 404)
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
    const spoken = await fetch(`${closed.base}/text_to_speech`, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', 'x-api-key': KEY }, body })
    expect(spoken.headers.get('access-control-allow-origin')).toBeNull()
    await spoken.arrayBuffer()
    expect(await handshake(closed, EVIL)).toBe('open')
  })
})
