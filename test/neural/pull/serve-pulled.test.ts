/**
 * Pulled packs served: createEngine({ modelsDir }) loads each under its own name, or under the
 * model id svc-tts.models.json maps to it, and lists their voices with language and gender.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId } from '../../../lib/index.js'
import { pullModels, readModelsDir } from '../../../lib/neural/index.js'
import { FIXTURES } from '../fixtures.js'
import { serveListening } from '../../helpers/served.js'
import { PIPER_VOICE, startHub } from './hub-server.js'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-serve-pulled-'))
  const hub = await startHub()
  try {
    await pullModels([PIPER_VOICE, 'kokoro-v1.0'], { modelsDir: dir, endpoint: hub.url })
  } finally {
    await hub.close()
  }
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const synthesis = <Id extends string>(model_id: Id, voice: string, sample_rate: 22050 | 24000) => ({
  model_id, transcript: 'Hello world.', speed: 1, voice: { mode: 'id' as const, id: voice },
  output_format: { container: 'raw' as const, encoding: 'pcm_s16le' as const, sample_rate },
})

describe('a models directory of pulled packs', () => {
  it('without a models file, serves each pulled pack under its own name', () => {
    expect(readModelsDir(dir)).toEqual({
      models: {
        [PIPER_VOICE]: { type: 'piper', path: path.join(dir, PIPER_VOICE, `${PIPER_VOICE}.onnx`) },
        'kokoro-v1.0': { type: 'kokoro', path: path.join(dir, 'kokoro-v1.0') },
      },
    })
  })

  it('a models file maps an id to a pulled pack (served under that id only), with genders; the voices list them with language and gender', async () => {
    await writeFile(path.join(dir, 'svc-tts.models.json'), JSON.stringify({ models: { 'svc_pro_v1.0': { pack: PIPER_VOICE, genders: { default: 'Female' } } } }))
    const engine = await createEngine({ modelsDir: dir })
    try {
      expect(engine.models.get('svc_pro_v1.0').pack?.path).toBe(path.join(dir, PIPER_VOICE, `${PIPER_VOICE}.onnx`))
      expect(engine.models.get('kokoro-v1.0').pack?.type).toBe('kokoro')
      expect(engine.models.list().some((m) => m.id === PIPER_VOICE)).toBe(false)
      const page = await engine.voices.list({ limit: 100 })
      const packVoices = page.voices.filter((v) => v.name.includes('(')).map((v) => [v.name, v.language, v.gender])
      expect(packVoices).toEqual([
        [`default (${PIPER_VOICE})`, 'en', 'Female'], ['af_heart (kokoro-v1.0)', 'en', 'Female'], ['am_michael (kokoro-v1.0)', 'en', 'Male'],
      ])
      // The pulled voice speaks as the fixture it was pulled from does.
      const reference = await createEngine({ models: { reference: { type: 'piper', path: path.join(FIXTURES, `${PIPER_VOICE}.onnx`) } } })
      try {
        const voice = packVoiceId({ type: 'piper', name: PIPER_VOICE }, 'default')
        const heard = await engine.synthesize(synthesis('svc_pro_v1.0', voice, 22050))
        expect(heard.length).toBeGreaterThan(1000)
        expect(heard.equals(await reference.synthesize(synthesis('reference', voice, 22050)))).toBe(true)
      } finally {
        await reference.close()
      }
      const kokoro = await engine.synthesize(synthesis('kokoro-v1.0', packVoiceId({ type: 'kokoro', name: 'kokoro-v1.0' }, 'am_michael'), 24000))
      expect(kokoro.length).toBeGreaterThan(1000)
    } finally {
      await engine.close()
      await rm(path.join(dir, 'svc-tts.models.json'))
    }
  })

  it('a models file naming a pack that is not pulled is MODEL_PACK_INVALID, saying how to pull it', async () => {
    await writeFile(path.join(dir, 'svc-tts.models.json'), JSON.stringify({ models: { 'svc_pro_v1.0': { pack: 'en_US-lessac-medium' } } }))
    try {
      expect(() => readModelsDir(dir)).toThrow(expect.objectContaining({
        code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/models\.svc_pro_v1\.0 names the pack 'en_US-lessac-medium', which is not pulled .*svc-tts models pull en_US-lessac-medium/),
      }))
    } finally {
      await rm(path.join(dir, 'svc-tts.models.json'))
    }
  })
})

describe('svc-tts serve --models-dir DIR', () => {
  it('serves the pulled packs: their voices listed with language and gender, a mix of the Kokoro pack\'s voices spoken', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-serve-data-'))
    const server = await serveListening(dataDir, 'standalone', { args: ['--models-dir', dir] })
    try {
      const key = server.lines.find((line) => line.startsWith('sk_'))!
      const headers = { 'content-type': 'application/json', 'x-api-key': key, version: 'v1' }
      const listed = (await (await fetch(`${server.url}/voices`, { method: 'POST', headers, body: '{"limit":100}' })).json()) as { voices: { name: string; language: string; gender: string }[] }
      expect(listed.voices.filter((v) => v.name.includes('(')).map((v) => [v.name, v.language, v.gender])).toEqual([
        [`default (${PIPER_VOICE})`, 'en', 'Unknown'], ['af_heart (kokoro-v1.0)', 'en', 'Female'], ['am_michael (kokoro-v1.0)', 'en', 'Male'],
      ])
      const voice = (name: string) => packVoiceId({ type: 'kokoro', name: 'kokoro-v1.0' }, name)
      const speech = await fetch(`${server.url}/text_to_speech`, {
        method: 'POST', headers,
        body: JSON.stringify({ ...synthesis('kokoro-v1.0', '', 24000), voice: { mode: 'mix', voices: [{ id: voice('af_heart'), weight: 2 }, { id: voice('am_michael'), weight: 1 }] } }),
      })
      expect(speech.status).toBe(200)
      expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(4000)
    } finally {
      await server.stop(10_000)
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
