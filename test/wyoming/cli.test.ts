// `svc-tts serve --wyoming tcp://...`: the Wyoming server beside the HTTP one, on the same engine,
// its address logged, each synthesis logged, and both closed on SIGTERM.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { serveListening } from '../helpers/served.js'
import { audioSegments, WyomingClient } from '../helpers/wyoming.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

describe('svc-tts serve --wyoming', () => {
  it('serves Wyoming beside HTTP, logs its address and each synthesis, and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-wyoming-cli-'))
    const served = await serveListening(dataDir, 'standalone', { args: ['--wyoming', 'tcp://127.0.0.1:0'] })
    try {
      const line = JSON.parse(await served.waitFor((l) => l.includes('"wyoming listening"'))) as { url: string; level: string }
      expect(line.level).toBe('info')
      expect(line.url).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/)
      const port = Number(line.url.split(':').at(-1))
      expect(port).not.toBe(served.port)
      const client = await WyomingClient.connect(port)
      client.send('synthesize', { text: 'Hello from Home Assistant.', voice: { name: 'Sarah' } })
      const events = await client.until((e) => e.type === 'audio-stop')
      client.close()
      const [segment] = audioSegments(events)
      expect(segment!.rate).toBe(16000)
      expect(segment!.pcm.length / 2 / 16000).toBeGreaterThan(1)
      const logged = JSON.parse(await served.waitFor((l) => l.includes('"wyoming synthesis"'))) as Record<string, unknown>
      expect(logged).toMatchObject({ level: 'info', event: 'synthesize', characters: 26, model_id: 'svc_pro_v1.0' })
      expect(logged.audio_seconds).toBeCloseTo(segment!.pcm.length / 2 / 16000, 3)
    } finally {
      expect(await served.stop(15_000)).toBe(0)
    }
  }, 60_000)

  it('refuses a Wyoming address it cannot serve beside the log on stdout', async () => {
    const serve = (uri: string) => run(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', 'serve', '--port', '0', '--wyoming', uri], { cwd: root })
    await expect(serve('stdio://')).rejects.toMatchObject({ code: 2, stderr: 'error INVALID_ARGUMENT: --wyoming takes tcp://host:port or unix://path\n' })
  })
})
