import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

describe('native loader', () => {
  it('fails with NATIVE_LOAD_FAILED and a way out when the addon cannot load', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', `
        import { createEngine } from './lib/index.ts'
        try { await createEngine() } catch (e) { console.log(JSON.stringify({ code: e.code, status: e.status, message: e.message })) }
      `],
      { cwd: root, encoding: 'utf8', env: { ...process.env, SVC_TTS_NATIVE_BINDING: path.join(root, 'no-such-addon.node') } },
    )
    const error = JSON.parse(result.stdout.trim()) as { code: string; status: number; message: string }
    expect(error.code).toBe('NATIVE_LOAD_FAILED')
    expect(error.status).toBe(500)
    // A fix that works from the user's own project, naming the Debian packages a build needs.
    expect(error.message).toMatch(/apt-get install -y cmake ninja-build g\+\+ libespeak-ng-dev .*flite1-dev/)
    expect(error.message).toContain('npm rebuild svc-tts')
    expect(error.message).not.toContain('npx cmake-js')
  })
})
