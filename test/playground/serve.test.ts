// `svc-tts serve --playground on|off`: on by default for a loopback host (the listening line says
// where), off when asked; anything else is a usage error. Off by default on other hosts.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { isLoopbackHost } from '../../lib/cli/serve.js'
import { serveListening } from '../helpers/served.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

describe('svc-tts serve --playground', () => {
  it('is on by default on a loopback host, and says where', async () => {
    const served = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-playground-')), 'standalone')
    try {
      const listening = JSON.parse(served.lines.find((line) => line.includes('"listening"'))!) as { playground: string }
      expect(listening.playground).toBe(`${served.url}/playground`)
      const page = await fetch(listening.playground)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>svc-tts playground</title>')
    } finally {
      await served.stop(15_000)
    }
  })

  it('is off with --playground off', async () => {
    const served = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-playground-')), 'standalone', { args: ['--playground', 'off'] })
    try {
      expect(served.lines.find((line) => line.includes('"listening"'))).not.toContain('playground')
      expect((await fetch(`${served.url}/playground`)).status).toBe(404)
    } finally {
      await served.stop(15_000)
    }
  })

  it('takes on or off only', async () => {
    const refused = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'serve', '--playground', 'yes'], { cwd: root }).catch((error: { code: number; stderr: string }) => error)
    expect(refused).toMatchObject({ code: 2, stderr: 'error INVALID_ARGUMENT: --playground takes on or off\n' })
  })

  it('defaults to on for loopback hosts only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.2', 'example.com', '127.0.0.1.example.com']) expect(isLoopbackHost(host), host).toBe(false)
  })
})
