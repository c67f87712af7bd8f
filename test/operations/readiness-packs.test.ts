import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { serve } from '../helpers/served.js'
import { FIXTURES } from '../neural/fixtures.js'

describe('svc-tts serve --models-dir', () => {
  it('answers /readyz 503 starting while its model packs load, then 200 once they are loaded and warmed', async () => {
    const served = serve(mkdtempSync(path.join(tmpdir(), 'svc-tts-readiness-')), 'standalone', { env: { SVC_TTS_API_KEYS: 'sk_test_readiness_key_0123456789abcdef012' }, args: ['--models-dir', FIXTURES] })
    try {
      const { url } = JSON.parse(await served.waitFor((line) => line.includes('"starting"'))) as { url: string }
      const early = await fetch(`${url}/readyz`)
      const body = (await early.json()) as { status: string; checks: { engine: string } }
      const listening = JSON.parse(await served.waitFor((line) => line.includes('"listening"'))) as { load_ms: number }
      expect([early.status, body.status, body.checks.engine], `packs loaded in ${listening.load_ms} ms`).toEqual([503, 'starting', 'loading'])
      const ready = await fetch(`${url}/readyz`)
      expect(ready.status).toBe(200)
      await ready.arrayBuffer()
    } finally {
      served.child.kill('SIGTERM')
      expect(await served.exit).toBe(0)
    }
  }, 60_000)
})
