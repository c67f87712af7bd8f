/**
 * The package as a CommonJS app meets it: a project with svc-tts installed (linked, as `npm link`
 * or a workspace does) loads it with require() — the root and every subpath — and speaks. The
 * package is ESM; Node (^20.19 or >=22.12) loads it with require() because no module of it has a
 * top-level await, so this test also guards against one. It runs the build in dist/.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeWav, rms, s16 } from '../helpers/audio.js'
import { voiceId } from '../helpers/engine.js'

const run = promisify(execFile)
const ROOT = path.resolve(import.meta.dirname, '../..')

const APP = `
const svc = require('svc-tts')
const server = require('svc-tts/server')
const express = require('svc-tts/express')
const fastify = require('svc-tts/fastify')
const schemas = require('svc-tts/schemas')
const models = require('svc-tts/models')

async function main() {
  const engine = await svc.createEngine()
  const request = { model_id: 'svc_flash_v1.5', transcript: 'Hello from require.', voice: { mode: 'id', id: process.argv[2] } }
  const wav = await engine.synthesize(request)
  let refused
  try {
    await engine.synthesize({ ...request, speed: 3 })
  } catch (error) {
    refused = { tts: error instanceof svc.TtsError, code: error.code }
  }
  const esm = await import('svc-tts')
  process.stdout.write(JSON.stringify({
    wav: wav.toString('base64'),
    refused,
    exports: {
      server: typeof server.createTtsServer,
      express: typeof express.createTtsRouter,
      fastify: typeof fastify.default,
      schemas: typeof schemas.synthesisRequestSchema.parse,
      models: typeof models.pullModels,
    },
    // One module instance whichever way it was loaded: no dual-package hazard.
    sameInstance: esm.TtsError === svc.TtsError && schemas.TtsError === svc.TtsError,
  }))
  await engine.close()
}
main().catch((error) => { console.error(error); process.exit(1) })
`

/** Records every native addon the process loads, then checks a request with svc-tts/schemas alone. */
const SCHEMAS_ONLY = `
const loaded = []
const dlopen = process.dlopen
process.dlopen = (module, file, ...rest) => { loaded.push(file); return dlopen(module, file, ...rest) }
const { synthesisRequestSchema } = require('svc-tts/schemas')
const request = { model_id: 'svc_flash_v1.5', transcript: 'Hi.', voice: { mode: 'id', id: 'x' } }
const verdicts = [synthesisRequestSchema.safeParse(request).success, synthesisRequestSchema.safeParse({ ...request, speed: 3 }).success]
const before = loaded.length
require('svc-tts').createEngine().then(async (engine) => {
  await engine.close()
  process.stdout.write(JSON.stringify({ verdicts, addonsBefore: before, addonsAfterEngine: loaded.length }))
})
`

let project: string

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build:ts` first')
  project = await mkdtemp(path.join(tmpdir(), 'svc-tts-require-'))
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'cjs-app', private: true, type: 'commonjs' }))
  await writeFile(path.join(project, 'app.js'), APP)
  await writeFile(path.join(project, 'schemas-only.js'), SCHEMAS_ONLY)
  await mkdir(path.join(project, 'node_modules'))
  await symlink(ROOT, path.join(project, 'node_modules', 'svc-tts'), 'dir')
})
afterAll(() => rm(project, { recursive: true, force: true }))

describe('require()', () => {
  it('loads the package and each subpath from a CommonJS project, and speaks', async () => {
    const { stdout } = await run(process.execPath, ['app.js', voiceId('Sarah')], { cwd: project, timeout: 60_000 })
    const result = JSON.parse(stdout)
    const wav = decodeWav(Buffer.from(result.wav, 'base64'))
    expect(wav.sampleRate).toBe(44100)
    const samples = s16(wav.data)
    expect(samples.length / wav.sampleRate).toBeGreaterThan(0.5)
    expect(rms(samples)).toBeGreaterThan(300)
    expect(result.refused).toEqual({ tts: true, code: 'INVALID_REQUEST' })
    expect(result.exports).toEqual({ server: 'function', express: 'function', fastify: 'function', schemas: 'function', models: 'function' })
    expect(result.sameInstance).toBe(true)
  })

  it('svc-tts/schemas validates requests without loading any native addon (the engine then loads its own)', async () => {
    const { stdout } = await run(process.execPath, ['schemas-only.js'], { cwd: project, timeout: 60_000 })
    const result = JSON.parse(stdout)
    expect(result.verdicts).toEqual([true, false])
    expect(result.addonsBefore).toBe(0)
    expect(result.addonsAfterEngine).toBeGreaterThan(0)  // the hook sees addons load
  })
})
