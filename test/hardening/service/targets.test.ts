// Issue 20, cases 1 and 19: malformed request targets, on `svc-tts serve` in a child process for
// each framework, so a crash shows up as an exit. Each is a 400 with the service's JSON body.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest, serveListening, type Listening } from '../../helpers/served.js'
import { ADAPTERS } from '../../helpers/server.js'

const KEY = 'sk_test_hardening_targets_0123456789abcdef'

describe.each(ADAPTERS)('malformed targets on %s', (framework) => {
  let server: Listening
  beforeAll(async () => {
    server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-targets-')), framework, { env: { SVC_TTS_API_KEYS: KEY } })
  })
  afterAll(async () => {
    expect(await server.stop(), server.stderr()).toBe(0)
  })

  const alive = async () => {
    const status = await fetch(`${server.url}/`, { headers: { version: 'v1' } })
    expect(status.status).toBe(200)
    expect(server.child.exitCode).toBeNull()
  }

  it.each([
    ['a malformed percent-escape in a path parameter', 'GET /voices/% HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a malformed percent-escape with a key', `GET /voices/%E0%A4%A HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEY}\r\n\r\n`],
    ['a target no URL parser reads', 'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a WebSocket upgrade to a target no URL parser reads', 'GET //[ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'],
  ])('%s is a 400 with the JSON error body, and the server goes on', async (_what, text) => {
    const response = await rawRequest(server.port, text)
    expect(response.status).toBe(400)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    const body = JSON.parse(response.body) as { error_code: string; message: string }
    expect(body.error_code).toBe('INVALID_REQUEST')
    // Case 19: no stack, no install paths.
    expect(response.body).not.toMatch(/node_modules|\/work\/|at .*\(/)
    await alive()
  })

  it('an unknown path is ROUTE_NOT_FOUND in the JSON body', async () => {
    const response = await rawRequest(server.port, 'GET /no/such/path HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(response.status).toBe(404)
    expect(JSON.parse(response.body)).toMatchObject({ error_code: 'ROUTE_NOT_FOUND' })
    await alive()
  })
})
