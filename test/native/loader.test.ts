import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
// The addon's folder: the build's, or the one SVC_TTS_NATIVE_BINDING names (scripts/test-asan.sh).
const built = path.dirname(process.env.SVC_TTS_NATIVE_BINDING ?? path.join(root, 'build/Release/svc_tts.node'))
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-tts-loader-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** Runs `code` (an ES module importing lib/) in a Node of its own; what it printed as JSON, line by line. */
function run(code: string, env: Record<string, string> = {}): unknown[] {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root, encoding: 'utf8', env: { ...process.env, ...env },
  })
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line))
}

/** The libonnxruntime files this process has mapped, as a line of JavaScript for run(). */
const ORT_MAPPED = `(await import('node:fs')).readFileSync('/proc/self/maps', 'utf8').split('\\n').map((l) => l.split(/\\s+/)[5] ?? '').filter((p, i, all) => p.includes('libonnxruntime') && all.indexOf(p) === i)`

const SPEAK = `
  const { voices } = await engine.voices.list({ limit: 1 })
  const audio = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: voices[0].voice_id }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 } })
`

describe('native loader', () => {
  it('fails with NATIVE_LOAD_FAILED and a way out when the addon cannot load', () => {
    const [error] = run(`
      import { createEngine } from './lib/index.ts'
      try { await createEngine() } catch (e) { console.log(JSON.stringify({ code: e.code, status: e.status, message: e.message })) }
    `, { SVC_TTS_NATIVE_BINDING: path.join(root, 'no-such-addon.node') }) as { code: string; status: number; message: string }[]
    expect(error!.code).toBe('NATIVE_LOAD_FAILED')
    expect(error!.status).toBe(500)
    // A fix that works from the user's own project, naming the Debian packages a build needs.
    expect(error!.message).toMatch(/apt-get install -y cmake ninja-build g\+\+ libespeak-ng-dev .*flite1-dev/)
    expect(error!.message).toContain('npm rebuild svc-tts')
    expect(error!.message).not.toContain('npx cmake-js')
  })

  it('opens ONNX Runtime, from beside the addon, with the first neural use, not with the addon', () => {
    const [before, version, after] = run(`
      import { createEngine } from './lib/index.ts'
      const engine = await createEngine()
      ${SPEAK}
      console.log(JSON.stringify({ audio: audio.length, mapped: ${ORT_MAPPED} }))
      console.log(JSON.stringify(engine.onnxRuntimeVersion()))
      console.log(JSON.stringify(${ORT_MAPPED}))
      await engine.close()
    `)
    expect(before).toEqual({ audio: expect.any(Number), mapped: [] })
    expect((before as { audio: number }).audio).toBeGreaterThan(22050)
    expect(version).toMatch(/^1\.\d+\.\d+ \(API \d+\)$/)
    expect(after).toEqual([path.join(built, 'libonnxruntime.so.1')])
  })

  it('without ONNX Runtime beside it, the addon speaks with its own backends and a neural pack fails with NATIVE_LOAD_FAILED', () => {
    // The build's folder as a prebuild would be, less ONNX Runtime.
    const folder = path.join(scratch, 'no-ort')
    mkdirSync(folder)
    for (const name of readdirSync(built)) {
      if (name.startsWith('libonnxruntime') || name === 'svc_tts_core_test') continue
      if (name === 'espeak-ng-data') symlinkSync(path.join(built, name), path.join(folder, name))
      else copyFileSync(path.join(built, name), path.join(folder, name))
    }
    const piper = path.join(root, 'test/fixtures/neural/en_US-fixture-medium.onnx')
    const [spoke, version, pack] = run(`
      import { createEngine } from './lib/index.ts'
      const engine = await createEngine()
      ${SPEAK}
      console.log(JSON.stringify(audio.length))
      try { engine.onnxRuntimeVersion() } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }
      await engine.close()
      try { await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: ${JSON.stringify(piper)}, cache: false } } }) }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }
    `, { SVC_TTS_NATIVE_BINDING: path.join(folder, 'svc_tts.node') })
    expect(spoke).toBeGreaterThan(22050)
    const missing = expect.stringMatching(new RegExp(`ONNX Runtime could not be loaded for the neural packs \\(${folder}/libonnxruntime\\.so\\.1\\): .*No such file`))
    expect(version).toEqual({ code: 'NATIVE_LOAD_FAILED', message: missing })
    expect(pack).toEqual({ code: 'NATIVE_LOAD_FAILED', message: missing })
  })
})
