// An install with --ignore-scripts has better-sqlite3's JavaScript but not its native binary (its
// own install script fetches that). The predefined voices must still speak; only cloning needs the
// library, and it fails with a code that says how to get it.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

// Loading better_sqlite3.node fails as it does where the file is missing; everything else loads.
const CHILD = `
const realDlopen = process.dlopen
process.dlopen = function (module, file, ...rest) {
  if (String(file).endsWith('better_sqlite3.node')) {
    throw Object.assign(new Error('Cannot find module ' + file), { code: 'MODULE_NOT_FOUND' })
  }
  return realDlopen.call(this, module, file, ...rest)
}
const { readFileSync } = await import('node:fs')
const { createEngine, PREDEFINED_VOICES } = await import('./lib/index.ts')
const engine = await createEngine()
const id = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah').record.voice_id
const audio = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id } })
const page = await engine.voices.list({ limit: 100 })
const missing = await engine.voices.get('no-such-voice').then((v) => v === undefined, (e) => e.code)
const sample = readFileSync('test/fixtures/voices/speaker.mp3')
const cloned = await engine.voices.clone(sample, { name: 'Mine', language: 'en' }).then(() => 'cloned', (e) => e.code)
await engine.close()
console.log(JSON.stringify({ bytes: audio.length, listed: page.voices.length, predefined: PREDEFINED_VOICES.length, missing, cloned }))
`

describe('without better-sqlite3 native binary', () => {
  it('speaks and lists the predefined voices; cloning fails with VOICE_LIBRARY_UNAVAILABLE', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    expect(child.stderr).toBe('')
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!)
    expect(result.bytes).toBeGreaterThan(22050)  // more than half a second of 16-bit audio at 22.05 kHz
    expect(result.listed).toBe(result.predefined)
    expect(result.missing).toBe('VOICE_NOT_FOUND')
    expect(result.cloned).toBe('VOICE_LIBRARY_UNAVAILABLE')
  }, 60_000)
})
