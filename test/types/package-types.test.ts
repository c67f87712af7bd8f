/**
 * The types as an installed package gives them (dist/*.d.ts through the exports map), to an ESM
 * module and to a CommonJS one (`import x = require`): valid requests compile, and the
 * `@ts-expect-error` cases fail to (a dead directive would be reported, TS2578). Runs on dist/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { afterAll, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const project = mkdtempSync(path.join(tmpdir(), 'svc-tts-types-app-'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

const ESM = `
import { createEngine, type SynthesisRequest } from 'svc-tts'
import { synthesisRequestSchema } from 'svc-tts/schemas'
import { createTtsServer } from 'svc-tts/server'
const engine = await createEngine({ models: { my_piper: { type: 'piper', path: '/voices/x.onnx' } } })
const request: SynthesisRequest = { model_id: 'svc_pro_v1.0', transcript: 'Hi.', voice: { mode: 'id', id: 'x' }, speed: 2 }
await engine.synthesize({ ...request, model_id: 'my_piper' })
// @ts-expect-error a sample rate the engine does not make
await engine.synthesize({ ...request, output_format: { sample_rate: 11025 } })
// @ts-expect-error a model id the engine does not serve
await engine.synthesize({ ...request, model_id: 'my_kokoro' })
synthesisRequestSchema.parse(request)
createTtsServer({ engine })
`

const CJS = `
import svc = require('svc-tts')
export const valid: svc.SynthesisRequest = { model_id: 'svc_flash_v1.5', transcript: 'x', voice: { mode: 'id', id: 'y' } }
// @ts-expect-error a misspelt field
export const typo: svc.SynthesisRequest = { model_id: 'svc_flash_v1.5', transcrpt: 'x', voice: { mode: 'id', id: 'y' } }
`

it('an ESM and a CommonJS app get the typed API from the package', () => {
  if (!existsSync(path.join(ROOT, 'dist/index.d.ts'))) throw new Error('dist/ is missing: run `npm run build:ts` first')
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  writeFileSync(path.join(project, 'app.ts'), ESM)
  writeFileSync(path.join(project, 'app.cts'), CJS)
  mkdirSync(path.join(project, 'node_modules'))
  symlinkSync(ROOT, path.join(project, 'node_modules', 'svc-tts'), 'dir')
  const program = ts.createProgram([path.join(project, 'app.ts'), path.join(project, 'app.cts')], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
  })
  const reported = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`)
  expect(reported).toEqual([])
}, 120_000)  // a whole program with zod's and Node's types: seconds, more on a busy machine
