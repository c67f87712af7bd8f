/** What the native hardening tests share: a child Node to run a scenario in, and a plan for the addon. */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { expect } from 'vitest'
import type { NativePlan } from '../../lib/native.js'

export const root = path.resolve(import.meta.dirname, '../..')
export const INDEX = JSON.stringify(path.join(root, 'lib/index.ts'))

export interface ChildResult {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs an ES module source in a fresh Node (with tsx), killed after `timeoutMs`. */
export function runChild(source: string, timeoutMs = 90_000): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { cwd: root })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr })
    })
  })
}

export function expectCleanExit(result: ChildResult): void {
  expect(result.stderr).not.toMatch(/terminate called|Segmentation|Aborted|core dumped|FATAL ERROR/)
  expect(result.signal).toBeNull()
  expect(result.status).toBe(0)
}

/** A worker_thread (eval'd, with tsx registered) that makes an engine and streams forever. */
export function streamingWorkerSource(models: string[]): string {
  return `
    import { parentPort } from 'node:worker_threads'
    import { register } from 'tsx/esm/api'
    register()  // eval'd workers do not inherit the parent's --import loaders
    const { createEngine, PREDEFINED_VOICES } = await import(${INDEX})
    const engine = await createEngine()
    const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
    const text = 'The birch canoe slid on the smooth planks. '.repeat(20)
    parentPort.postMessage('ready')
    const models = ${JSON.stringify(models)}
    for (let i = 0; ; i++) {
      for await (const chunk of engine.stream({ model_id: models[i % models.length], transcript: text, voice })) {}
    }
  `
}

export const PLAN: NativePlan = {
  backend: 'flite',
  voice: 'slt',
  speed: 1,
  requestSpeed: 1,
  pitch: 1,
  sampleRate: 16000,
  encoding: 'pcm_s16le',
  queueCapacity: 2,
  chunks: [{ pieces: [{ kind: 'text', text: 'Hello there.' }] }],
}
