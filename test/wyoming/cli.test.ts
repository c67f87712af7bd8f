// `svc-tts serve --wyoming tcp://...`: the Wyoming server beside the HTTP one, on the same engine,
// its address logged, each synthesis logged, and both closed on SIGTERM.
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { serveListening } from '../helpers/served.js'
import { audioSegments, frame, parseEvents as parseAll, WyomingClient } from '../helpers/wyoming.js'

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

  it('exits 3, its HTTP server closed, when the Wyoming address is taken', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-wyoming-cli-'))
      const args = ['--import', 'tsx', 'lib/cli/bin.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--wyoming', `tcp://127.0.0.1:${port}`]
      const failed = run(process.execPath, args, { cwd: root, env: { ...process.env, SVC_TTS_API_KEYS: '' } })
      await expect(failed).rejects.toMatchObject({ code: 3, stderr: expect.stringMatching(new RegExp(`^error IO_FAILED: the Wyoming server cannot listen on tcp://127.0.0.1:${port}: listen EADDRINUSE`)) })
    } finally {
      taken.close()
    }
  }, 60_000)

  it('refuses a Wyoming address it cannot serve beside the log on stdout', async () => {
    const serve = (uri: string) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'serve', '--port', '0', '--wyoming', uri], { cwd: root })
    await expect(serve('stdio://')).rejects.toMatchObject({ code: 2, stderr: 'error INVALID_ARGUMENT: --wyoming takes tcp://host:port or unix://path\n' })
  })
})

describe('createWyomingServer on stdio://', () => {
  it('speaks over stdin and stdout, as a program that runs it as a child does', async () => {
    const script = [
      "import { createEngine } from './lib/index.ts'",
      "import { createWyomingServer } from './lib/server/index.ts'",
      'const engine = await createEngine()',
      "const server = await createWyomingServer(engine, { uri: 'stdio://' })",
      "process.stdin.once('end', () => void server.close().then(() => engine.close()))",
    ].join('\n')
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root })
    const out: Buffer[] = []
    child.stdout.on('data', (part: Buffer) => out.push(part))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    child.stdin.write(frame('synthesize', { text: 'Hello.', voice: { name: 'Sarah' } }))
    const started = Date.now()
    while (!Buffer.concat(out).includes('"audio-stop"') && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 20))
    child.stdin.end()
    expect(await exited).toBe(0)
    const client = parseAll(Buffer.concat(out))
    expect(client.map((e) => e.type).filter((t) => t !== 'audio-chunk')).toEqual(['audio-start', 'audio-stop'])
    expect(audioSegments(client)[0]!.rate).toBe(16000)
  }, 60_000)
})
