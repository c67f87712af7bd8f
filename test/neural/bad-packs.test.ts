/**
 * A bad pack fails createEngine with a clear code, never a later request and never the process;
 * and device 'cuda' on a machine without CUDA is a clean error while 'auto' falls back with a warning.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES, type PackOptions } from '../../lib/index.js'
import { KOKORO, KOKORO_INT_SPEED, PIPER } from './fixtures.js'

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-tts-packs-'))

/** A copy of the Piper fixture with its config changed by `edit`. */
function piperWith(name: string, edit: (config: Record<string, any>) => void, model = PIPER): string {
  const target = path.join(scratch, `${name}.onnx`)
  copyFileSync(model, target)
  const config = JSON.parse(readFileSync(`${PIPER}.json`, 'utf8'))
  edit(config)
  writeFileSync(`${target}.json`, JSON.stringify(config))
  return target
}

async function loadError(pack: PackOptions, device?: 'auto' | 'cpu' | 'cuda'): Promise<{ code: string; message: string }> {
  try {
    await createEngine({ models: { 'svc_pro_v1.0': pack }, ...(device && { device }) })
  } catch (error) {
    return error as { code: string; message: string }
  }
  throw new Error('the pack loaded')
}

describe('a bad pack fails at load with MODEL_PACK_INVALID', () => {
  it('a missing model file or config', async () => {
    expect(await loadError({ type: 'piper', path: path.join(scratch, 'nothing.onnx') })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/does not exist/) })
    const lonely = path.join(scratch, 'lonely.onnx')
    copyFileSync(PIPER, lonely)
    expect(await loadError({ type: 'piper', path: lonely })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/config .*lonely\.onnx\.json does not exist/) })
    expect(await loadError({ type: 'kokoro', path: scratch })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/no model\.onnx/) })
  })

  it('a model whose inputs are not Piper\'s', async () => {
    const kokoroAsPiper = piperWith('kokoro-as-piper', () => {}, path.join(KOKORO, 'model.onnx'))
    expect(await loadError({ type: 'piper', path: kokoroAsPiper })).toMatchObject({
      code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/no input 'input' \(its inputs: input_ids, style, speed\)/),
    })
  })

  it('corrupt model bytes', async () => {
    const corrupt = piperWith('corrupt', () => {})
    const bytes = readFileSync(corrupt)
    writeFileSync(corrupt, bytes.subarray(0, bytes.length / 2))
    expect(await loadError({ type: 'piper', path: corrupt })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/cannot load/) })
    writeFileSync(corrupt, 'not a model at all')
    expect(await loadError({ type: 'piper', path: corrupt })).toMatchObject({ code: 'MODEL_PACK_INVALID' })
  })

  it('a phoneme the voice speaks that the id map lacks, or a map without pad, BOS, EOS', async () => {
    const noSchwa = piperWith('no-schwa', (c) => delete c.phoneme_id_map['ə'])
    expect(await loadError({ type: 'piper', path: noSchwa })).toMatchObject({
      code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/speaks phoneme 'ə' \(U\+0259\), which phoneme_id_map lacks/),
    })
    const noBos = piperWith('no-bos', (c) => delete c.phoneme_id_map['^'])
    expect(await loadError({ type: 'piper', path: noBos })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/lacks '\^'/) })
    const outOfRange = piperWith('id-out-of-range', (c) => (c.phoneme_id_map['a'] = [300]))
    expect(await loadError({ type: 'piper', path: outOfRange })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/num_symbols/) })
  })

  it('a wrong sample rate, a missing key or an unknown espeak voice in the config', async () => {
    const typo = piperWith('rate-typo', (c) => (c.audio.sample_rate = 22500))
    expect(await loadError({ type: 'piper', path: typo })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/sample_rate 22500/) })
    const noMap = piperWith('no-map', (c) => delete c.phoneme_id_map)
    expect(await loadError({ type: 'piper', path: noMap })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/phoneme_id_map/) })
    const badVoice = piperWith('bad-voice', (c) => (c.espeak.voice = 'en-xx-nonsense'))
    expect(await loadError({ type: 'piper', path: badVoice })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/en-xx-nonsense/) })
  })

  it('a Kokoro voice file of the wrong size, or none', async () => {
    const directory = mkdtempSync(path.join(scratch, 'kokoro-'))
    symlinkSync(path.join(KOKORO, 'model.onnx'), path.join(directory, 'model.onnx'))
    expect(await loadError({ type: 'kokoro', path: directory })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/no voice style files/) })
    mkdirSync(path.join(directory, 'voices'))
    writeFileSync(path.join(directory, 'voices', 'af_short.bin'), Buffer.alloc(1000))
    expect(await loadError({ type: 'kokoro', path: directory })).toMatchObject({ code: 'MODEL_PACK_INVALID', message: expect.stringMatching(/1000 bytes, not rows of 256 float32/) })
  })

  it('bad engine options are INVALID_REQUEST', async () => {
    await expect(createEngine({ models: { x: { type: 'vits', path: PIPER } as never } })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(createEngine({ device: 'gpu' as never })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
  })
})

describe('devices', () => {
  it("'cuda' without CUDA is DEVICE_UNAVAILABLE, naming what is missing", async () => {
    expect(await loadError({ type: 'piper', path: PIPER }, 'cuda')).toMatchObject({
      code: 'DEVICE_UNAVAILABLE', message: expect.stringMatching(/device 'cuda' cannot run here: .*(provider|library|driver)/),
    })
  })

  it("'auto' falls back to the CPU and says why", async () => {
    const warnings: string[] = []
    const engine = await createEngine({ models: { 'svc_flash_v1.5': { type: 'kokoro', path: KOKORO_INT_SPEED } }, device: 'auto', onWarning: (m) => warnings.push(m) })
    const pack = engine.models.get('svc_flash_v1.5').pack!
    expect(pack.info.device).toBe('cpu')
    expect(pack.info.inputs.map((i) => `${i.name}:${i.type}`)).toEqual(['tokens:int64', 'style:float32', 'speed:int32'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/svc_flash_v1\.5 runs on the CPU: .*CUDA/)
    // This export names its tensors tokens/audio/duration and takes speed as int32: it speaks all the same.
    const audio = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: PREDEFINED_VOICES[0]!.record.voice_id } })
    expect(audio.length).toBeGreaterThan(44 + 44100 * 0.2 * 2)
    await engine.close()
  })
})
