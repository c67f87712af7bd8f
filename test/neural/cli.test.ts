import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { FIXTURES } from './fixtures.js'

const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], { cwd: path.resolve(import.meta.dirname, '../..') })

describe('svc-tts with --models-dir', () => {
  it('lists models with their packs, devices and voices', async () => {
    const { stdout } = await cli('models', '--models-dir', FIXTURES)
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^ONNX Runtime 1\.29/)
    expect(lines).toContain(`svc_pro_v1.0  en  piper ${path.join(FIXTURES, 'en_US-fixture-medium.onnx')} on cpu, durations`)
    expect(lines).toContain('  en  Female   af_mix')
    expect(lines.some((l) => l.startsWith('svc_flash_v1.0  ') && l.endsWith('espeak'))).toBe(true)
  })

  it('says a sentence with a pack at its own sample rate', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-neural-cli-')), 'kokoro.wav')
    await cli('say', 'Hello there.', '--out', out, '--models-dir', FIXTURES, '--model', 'svc_flash_v1.5', '--voice', 'Sarah', '--sample-rate', '24000')
    const wav = decodeWav(readFileSync(out))
    expect(wav.sampleRate).toBe(24000)
    expect(wav.data.length / 2 / 24000).toBeGreaterThan(0.3)
  })

  it('fails with MODEL_PACK_INVALID when the directory has no models file', async () => {
    await expect(cli('models', '--models-dir', tmpdir())).rejects.toMatchObject({ stderr: expect.stringMatching(/MODEL_PACK_INVALID: .*svc-tts\.models\.json does not exist/) })
  })
})
