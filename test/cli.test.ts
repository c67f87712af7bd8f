import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { PREDEFINED_VOICES } from '../lib/index.js'
import { decodeWav, rms, s16 } from './helpers/audio.js'

const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli.ts', ...args], { cwd: path.resolve(import.meta.dirname, '..') })

describe('svc-tts command line', () => {
  it('says a sentence into a WAV file', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-cli-')), 'hello.wav')
    await cli('say', 'Hello there', '--out', out, '--sample-rate', '24000')
    const file = readFileSync(out)
    const wav = decodeWav(file)
    expect(wav.sampleRate).toBe(24000)
    expect(wav.dataSize).toBe(file.length - 44)  // sizes filled in once the stream ended
    const samples = s16(wav.data)
    expect(samples.length / 24000).toBeGreaterThan(0.5)
    expect(rms(samples)).toBeGreaterThan(300)
  })

  it('speaks another language with a named voice and model', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-cli-')), 'bonjour.raw')
    await cli('say', 'Bonjour tout le monde', '--out', out, '--model', 'svc_flash_v1.5', '--voice', 'Camille', '--encoding', 'pcm_f32le')
    const bytes = readFileSync(out)
    expect(bytes.length % 4).toBe(0)
    expect(bytes.length / 4 / 44100).toBeGreaterThan(0.5)
  })

  it('lists the voices', async () => {
    const { stdout } = await cli('voices')
    expect(stdout.trim().split('\n').length).toBe(PREDEFINED_VOICES.length)
    expect(stdout).toContain('Sarah')
  })

  it('reports a bad request with its code and a non-zero exit', async () => {
    const error = await cli('say', 'Hi', '--out', '-', '--encoding', 'mp3').then(() => undefined, (e: { code: number; stderr: string }) => e)
    expect(error?.code).toBe(1)
    expect(error?.stderr).toContain('FORMAT_NOT_RECOGNIZED')
  })
})
