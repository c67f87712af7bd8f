// `svc-tts models available|pull|list|rm` against the local hub (HF_ENDPOINT), into SVC_TTS_MODELS_DIR.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PIPER_VOICE, startHub, type LocalHub } from './hub-server.js'

const run = promisify(execFile)
let hub: LocalHub
let dir: string

beforeEach(async () => {
  hub = await startHub()
  dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-models-cli-'))
})
afterEach(async () => {
  await hub.close()
  await rm(dir, { recursive: true, force: true })
})

const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/main.ts', ...args], {
  cwd: path.resolve(import.meta.dirname, '../../..'), timeout: 30_000,
  env: { ...process.env, HF_ENDPOINT: hub.url, SVC_TTS_MODELS_DIR: dir },
})
const lines = (text: string) => text.trim().split('\n')

describe('svc-tts models', () => {
  it('available lists the catalogue, filtered by language and quality', async () => {
    const english = lines((await cli('models', 'available', '--language', 'en')).stdout)
    expect(english).toContain('en_US-fixture-medium  piper  en_US  medium  1 speaker  0.0 MB')
    expect(english).toContain('en_US-libritts_r-medium  piper  en_US  medium  4 speakers  78.9 MB')
    expect(english.some((l) => l.startsWith('kokoro-v1.0  kokoro  en  fp32  2 speakers'))).toBe(true)
    expect(english.some((l) => l.startsWith('kokoro-v1.0-q8  kokoro  en  q8  '))).toBe(true)
    expect(english.some((l) => l.startsWith('de_DE'))).toBe(false)
    expect(lines((await cli('models', 'available', '--quality', 'low')).stdout)).toEqual(['en_GB-alan-low  piper  en_GB  low  1 speaker  63.1 MB'])
  })

  it('pull, list, pull again, rm', async () => {
    const pulled = await cli('models', 'pull', PIPER_VOICE)
    expect(pulled.stdout).toBe(`${PIPER_VOICE}  pulled 0.0 MB  ${path.join(dir, PIPER_VOICE)}\n`)
    expect(pulled.stderr).toBe('')  // no bar: stderr is not a terminal
    expect(lines((await cli('models', 'list')).stdout)).toEqual([`${PIPER_VOICE}  piper  en_US  medium  1 speaker  0.0 MB  ${path.join(dir, PIPER_VOICE)}`])
    expect((await cli('models', 'pull', PIPER_VOICE)).stdout).toMatch(new RegExp(`^${PIPER_VOICE}  already installed`))
    expect(lines((await cli('models', 'available', '--language', 'en_US')).stdout)).toContain(`${PIPER_VOICE}  piper  en_US  medium  1 speaker  0.0 MB  installed`)
    expect((await cli('models', 'rm', PIPER_VOICE)).stdout).toBe(`removed ${PIPER_VOICE}\n`)
    expect((await cli('models', 'list')).stdout).toBe('')
  })

  it('an unknown name fails with the closest names and exit status 1', async () => {
    await expect(cli('models', 'pull', 'en_US-fixtur-medium')).rejects.toMatchObject({
      code: 1, stderr: expect.stringMatching(/^error MODEL_NOT_IN_CATALOGUE: no model named 'en_US-fixtur-medium' in the catalogue; closest: en_US-fixture-medium, /),
    })
  })
})
