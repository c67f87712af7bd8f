/**
 * The type tests are live: tsc (run by `npm run typecheck` on test/types/api.types.ts) reports an
 * `@ts-expect-error` with no error under it (TS2578), so a case that stopped failing to compile
 * fails the typecheck. Checked here on a probe file with one dead and one live directive.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { afterAll, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-tts-types-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

it('an @ts-expect-error over a line that compiles is an error; one over a real error is not', () => {
  const probe = path.join(scratch, 'probe.ts')
  writeFileSync(probe, [
    `import type { SynthesisRequest } from ${JSON.stringify(path.join(ROOT, 'lib/schemas/index.js'))}`,
    '// @ts-expect-error (dead: the request below is valid)',
    `export const valid: SynthesisRequest = { model_id: 'svc_pro_v1.0', transcript: 'Hi.', voice: { mode: 'id', id: 'x' } }`,
    '// @ts-expect-error (live: 11025 is not a sample rate the engine makes)',
    'export const invalid: SynthesisRequest = { ...valid, output_format: { sample_rate: 11025 } }',
    '',
  ].join('\n'))
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile)
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT)
  const program = ts.createProgram([probe], { ...options, noEmit: true })
  const reported = ts.getPreEmitDiagnostics(program).map((d) => ({
    code: d.code,
    line: d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : 0,
  }))
  expect(reported).toEqual([{ code: 2578, line: 2 }])
})
