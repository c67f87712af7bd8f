// `svc-tts models available|pull|list|rm` against the local hub (HF_ENDPOINT), into SVC_TTS_MODELS_DIR.
import { execFile } from 'node:child_process'
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeWav } from '../../helpers/audio.js'
import { createEngine, packVoiceId } from '../../../lib/index.js'
import { FIXTURES } from '../fixtures.js'
import { PIPER_VOICE, startHub, type LocalHub } from './hub-server.js'

const run = promisify(execFile)
let hub: LocalHub
let dir: string

beforeEach(async () => {
  hub = await startHub()
  hub.requireToken('hf_from_the_environment')
  dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-models-cli-'))
})
afterEach(async () => {
  await hub.close()
  await rm(dir, { recursive: true, force: true })
})

const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], {
  cwd: path.resolve(import.meta.dirname, '../../..'), timeout: 30_000,
  env: { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: 'hf_from_the_environment', SVC_TTS_MODELS_DIR: dir },
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
    // HF_TOKEN went to the hub (which refuses requests without it), never to the CDN.
    expect(hub.requests.filter((r) => r.server === 'cdn').map((r) => r.authorization)).toEqual([undefined])
  })

  it('an unknown name fails with the closest names and exit status 1', async () => {
    await expect(cli('models', 'pull', 'en_US-fixtur-medium')).rejects.toMatchObject({
      code: 1, stderr: expect.stringMatching(/^error MODEL_NOT_IN_CATALOGUE: no model named 'en_US-fixtur-medium' in the catalogue; closest: en_US-fixture-medium, /),
    })
  })
})

describe('svc-tts say --voice PACK', () => {
  it('a pack not pulled is refused unless --pull: nothing is fetched', async () => {
    const out = path.join(dir, 'never.wav')
    await expect(cli('say', 'Hello.', '--voice', PIPER_VOICE, '--out', out)).rejects.toMatchObject({
      code: 1, stderr: expect.stringMatching(new RegExp(`^error MODEL_NOT_FOUND: the pack '${PIPER_VOICE}' is not pulled into .*: add --pull, or run svc-tts models pull ${PIPER_VOICE}`)),
    })
    expect(hub.requests).toEqual([])
    expect(existsSync(out)).toBe(false)
  })

  it('--pull pulls it first, then speaks with it: the fixture voice\'s own audio; a Kokoro speaker is PACK/SPEAKER', async () => {
    const piper = path.join(dir, 'piper.wav')
    await cli('say', 'Hello there.', '--voice', PIPER_VOICE, '--pull', '--out', piper, '--quiet', '--sample-rate', '22050')
    const heard = decodeWav(await readFile(piper))
    const engine = await createEngine({ models: { fixture: { type: 'piper', path: path.join(FIXTURES, `${PIPER_VOICE}.onnx`) } } })
    try {
      const expected = await engine.synthesize({
        model_id: 'fixture', transcript: 'Hello there.', speed: 1, voice: { mode: 'id', id: packVoiceId({ type: 'piper', name: PIPER_VOICE }, 'default') },
        output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 },
      })
      expect(heard.sampleRate).toBe(22050)
      expect(expected.length).toBeGreaterThan(4000)
      expect(heard.data.equals(expected)).toBe(true)
    } finally {
      await engine.close()
    }
    expect(lines((await cli('models', 'list')).stdout)[0]).toMatch(new RegExp(`^${PIPER_VOICE}  piper`))
    const kokoro = path.join(dir, 'kokoro.wav')
    await cli('say', 'Hello there.', '--voice', 'kokoro-v1.0/am_michael', '--pull', '--out', kokoro, '--quiet', '--sample-rate', '24000')
    expect(decodeWav(await readFile(kokoro))).toMatchObject({ sampleRate: 24000 })
    await expect(cli('say', 'Hello.', '--voice', 'kokoro-v1.0/zz_nobody', '--out', kokoro)).rejects.toMatchObject({
      stderr: expect.stringMatching(/^error VOICE_NOT_FOUND: the pack 'kokoro-v1.0' has no speaker 'zz_nobody'; it has af_heart, am_michael/),
    })
  }, 60_000)
})
