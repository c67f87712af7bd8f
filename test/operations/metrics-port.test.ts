import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { serveListening } from '../helpers/served.js'

const KEY = 'sk_test_metrics_port_key_0123456789abcdef0'

describe('svc-tts serve --metrics-port', () => {
  it('serves the metrics and the probes with no key on a port of their own, and nothing else there; the API port keeps /metrics behind a key', async () => {
    const server = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-metrics-')), 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args: ['--metrics-port', '0'] })
    try {
      const listening = JSON.parse(server.lines.find((line) => line.includes('"listening"'))!) as { metrics_url: string }
      const metricsUrl = new URL(listening.metrics_url)
      expect(metricsUrl.port).not.toBe(String(server.port))
      const metrics = await fetch(metricsUrl)
      expect(metrics.status).toBe(200)
      expect(await metrics.text()).toContain('svc_tts_ready 1')
      expect((await fetch(new URL('/readyz', metricsUrl))).status).toBe(200)
      expect((await fetch(new URL('/healthz', metricsUrl))).status).toBe(200)
      const other = await fetch(new URL('/text_to_speech', metricsUrl), { method: 'POST', headers: { 'x-api-key': KEY }, body: '{}' })
      expect([other.status, ((await other.json()) as { error_code: string }).error_code]).toEqual([404, 'ROUTE_NOT_FOUND'])
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401)
      expect((await fetch(`${server.url}/metrics`, { headers: { 'x-api-key': KEY } })).status).toBe(200)
    } finally {
      expect(await server.stop(15_000)).toBe(0)
    }
  }, 30_000)
})
