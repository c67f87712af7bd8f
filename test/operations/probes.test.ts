import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../lib/index.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const speech = { model_id: 'svc_flash_v1.5', transcript: 'Ready when you are.', voice: { mode: 'id', id: voiceId('Sarah') } }

describe.each(ADAPTERS)('probes on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('/healthz and /readyz answer with no key and no version header', async () => {
    const health = await fetch(`${server.base}/healthz`)
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }])
    const ready = await fetch(`${server.base}/readyz`)
    expect([ready.status, await ready.json()]).toEqual([200, { ready: true, status: 'ready', checks: { engine: 'loaded', voice_store: 'ok' } }])
  })

  it('draining: /readyz turns 503 at once while requests are still served', async () => {
    const own = await start(adapter, { engine, keys: TEST_KEYS })
    own.service.drain()
    const ready = await fetch(`${own.base}/readyz`)
    expect([ready.status, ((await ready.json()) as { status: string }).status]).toEqual([503, 'draining'])
    const served = await post(own.base, '/text_to_speech', speech)
    expect(served.status).toBe(200)
    expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(1000)
    await own.close()
  })
})

describe('a service whose engine is still loading', () => {
  it('answers the probes (readyz 503 starting), refuses requests and handshakes with 503 SERVER_STARTING, then serves once loaded', async () => {
    let loaded!: (engine: Engine) => void
    const loading = new Promise<Engine>((resolve) => (loaded = resolve))
    const server = await start('standalone', { engine: loading as unknown as Engine, keys: TEST_KEYS })
    try {
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200)
      const ready = await fetch(`${server.base}/readyz`)
      expect([ready.status, await ready.json()]).toEqual([503, { ready: false, status: 'starting', checks: { engine: 'loading', voice_store: 'unchecked' } }])
      const refused = await post(server.base, '/text_to_speech', speech)
      expect([refused.status, refused.headers.get('retry-after'), ((await refused.json()) as { error_code: string }).error_code]).toEqual([503, '1', 'SERVER_STARTING'])
      const handshake = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`).then(
        () => undefined,
        (error: { status?: number; body?: { error_code?: string } }) => [error.status, error.body?.error_code],
      )
      expect(handshake).toEqual([503, 'SERVER_STARTING'])

      loaded(engine)
      await server.service.started
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200)
      expect((await post(server.base, '/text_to_speech', speech)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('that failed to load: /readyz 503 failed, requests 503, and `started` rejects with the failure', async () => {
    const failure = Promise.reject(new Error('the pack is corrupt'))
    const server = await start('standalone', { engine: failure as unknown as Engine, keys: TEST_KEYS })
    try {
      await expect(server.service.started).rejects.toThrow('the pack is corrupt')
      const ready = await fetch(`${server.base}/readyz`)
      expect([ready.status, ((await ready.json()) as { status: string }).status]).toEqual([503, 'failed'])
      expect((await post(server.base, '/text_to_speech', speech)).status).toBe(503)
    } finally {
      await server.close()
    }
  })
})
