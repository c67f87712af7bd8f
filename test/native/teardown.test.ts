import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')

// Each scenario runs in a fresh Node process, so a crash shows up as a signal or exit code.
function runScenario(source: string): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { cwd: root, encoding: 'utf8', timeout: 60_000 })
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr }
}

const PRELUDE = `
import { createEngine, PREDEFINED_VOICES } from './lib/index.ts'
const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
const long = 'The birch canoe slid on the smooth planks. '.repeat(300)
`

describe('teardown', () => {
  it('process.exit with streams in flight exits cleanly', () => {
    const result = runScenario(`${PRELUDE}
      const engine = await createEngine()
      for (const model of ['svc_flash_v1.5', 'svc_pro_v1.0', 'svc_flash_v1.5', 'svc_pro_v1.0']) {
        const it = engine.stream({ model_id: model, transcript: long, voice })[Symbol.asyncIterator]()
        await it.next()
      }
      setTimeout(() => process.exit(0), 20)
    `)
    expect(result.signal).toBeNull()
    expect(result.status).toBe(0)
  })

  it('a script that forgets to close the engine still exits once its work is done', () => {
    const result = runScenario(`${PRELUDE}
      const engine = await createEngine()
      const wav = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Done.', voice })
      console.log('bytes', wav.length)
    `)
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/bytes \d{4,}/)
  })

  it('a worker thread terminated mid-stream does not take the process down', () => {
    const result = runScenario(`
      import { Worker } from 'node:worker_threads'
      const workerSource = \`
        import { parentPort } from 'node:worker_threads'
        import { register } from 'tsx/esm/api'
        register()  // eval'd workers do not inherit the parent's --import loaders
        const { createEngine, PREDEFINED_VOICES } = await import(${JSON.stringify(path.join(root, 'lib/index.ts'))})
        const engine = await createEngine()
        const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
        for (const model of ['svc_flash_v1.5', 'svc_pro_v1.0']) {
          const it = engine.stream({ model_id: model, transcript: 'The birch canoe slid on the smooth planks. '.repeat(300), voice })[Symbol.asyncIterator]()
          await it.next()
        }
        parentPort.postMessage('streaming')
        await new Promise(() => {})
      \`
      for (let round = 0; round < 3; round++) {
        const worker = new Worker(workerSource, { eval: true })
        await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
        await worker.terminate()
      }
      // The main thread still synthesizes after its workers were torn down.
      const { createEngine, PREDEFINED_VOICES } = await import('./lib/index.ts')
      const engine = await createEngine()
      const wav = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still here.', voice: { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id } })
      console.log('ok', wav.length)
    `)
    expect(result.stderr).not.toMatch(/Segmentation|Aborted|core dumped/)
    expect(result.signal).toBeNull()
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/ok \d+/)
  })
})
