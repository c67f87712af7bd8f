/**
 * 1-D convolutions run as 2-D ones (native/onnx/conv_lift.cc): every form a model may hold is
 * rewritten or left alone as it should be, and the audio is the file's as ONNX Runtime runs it
 * unchanged (the fixture: scripts/make-neural-fixtures.py piper_convs, at opset 11).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId, TtsError, type Engine } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { collect } from '../helpers/engine.js'
import { as16Bit, f32, FIXTURES, float32, int64, KOKORO, maxAbsDifference, packOf, piperConfig, piperIds, rawRun } from './fixtures.js'

const CONVS = `${FIXTURES}/en_US-fixtureconvs-medium.onnx`
const VITS = `${FIXTURES}/en_US-fixturevits-medium.onnx`

let engine: Engine<string>

beforeAll(async () => {
  engine = await createEngine({
    models: {
      lifted: { type: 'piper', path: CONVS },
      asFile: { type: 'piper', path: CONVS, liftConvolutions: false },
      vits: { type: 'piper', path: VITS },
      kokoro: { type: 'kokoro', path: KOKORO },
    },
  })
})
afterAll(() => engine.close())

const pack = (id: string) => packOf(engine, id)

async function rawInputs(text: string) {
  const ids = piperIds(`${await loadNative().phonemize(text, 'en-us', true)}.`, CONVS)
  const { inference } = piperConfig(CONVS)
  return [
    int64('input', ids),
    int64('input_lengths', [BigInt(ids.length)], [1]),
    float32('scales', [inference.noise_scale!, inference.length_scale!, inference.noise_w!], [3]),
  ]
}

describe('1-D convolutions as 2-D ones', () => {
  it('rewrites each 1-D Conv and ConvTranspose and leaves the rest', () => {
    // Six of eight: not the computed weight without kernel_shape, not the true 2-D convolution.
    expect(pack('lifted').info).toMatchObject({ liftedConvolutions: 6 })
    expect(pack('lifted').info.liftedConvolutionsWhy).toBeUndefined()
    expect(pack('asFile').info).toMatchObject({ liftedConvolutions: 0 })
    expect(pack('asFile').info.liftedConvolutionsWhy).toBeUndefined()
    // Both parts of a windowed vocoder: conv_pre in the text side, three in the vocoder.
    expect(pack('vits').info).toMatchObject({ windowedVocoder: true, liftedConvolutions: 4 })
    expect(pack('kokoro').info).toMatchObject({ liftedConvolutions: 0, liftedConvolutionsWhy: 'the model has no 1-D convolution' })
    // The pack describes the model it was given.
    expect(pack('lifted').info.inputs).toEqual(pack('asFile').info.inputs)
    expect(pack('lifted').info.outputs).toEqual(pack('asFile').info.outputs)
  })

  it('makes the samples ONNX Runtime makes from the file unchanged', async () => {
    const inputs = await rawInputs('The birch canoe slid on the smooth planks')
    const [lifted] = await rawRun(pack('lifted').model, inputs, ['output'])
    const [asFile] = await rawRun(pack('asFile').model, inputs, ['output'])
    expect(lifted!.length).toBe(256 * Number(inputs[1]!.data[0]))
    expect(Math.max(...asFile!.map(Math.abs))).toBeGreaterThan(0.05)
    expect(maxAbsDifference(lifted!, asFile!)).toBeLessThan(1e-5)

    const transcript = 'The birch canoe slid on the smooth planks.'
    const chunks = await collect(engine.speak({
      model_id: 'lifted', transcript, voice: { mode: 'id', id: packVoiceId(pack('lifted'), 'default') },
      output_format: { encoding: 'pcm_f32le', sample_rate: 22050 },
    }))
    const engineAudio = f32(Buffer.concat(chunks.map((c) => c.audio)))
    expect(engineAudio.length).toBe(asFile!.length)
    expect(maxAbsDifference(engineAudio, as16Bit(lifted!))).toBeLessThan(1e-5)
    // Rounded to 16 bits, a float a hair from a step's middle may land one step over.
    expect(maxAbsDifference(engineAudio, as16Bit(asFile!))).toBeLessThanOrEqual(1 / 32768)
  })
})

describe('a damaged model on its way through the rewrite', () => {
  it('loads or fails with MODEL_PACK_INVALID, never a crash: bytes changed or cut anywhere', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'svc-tts-lift-'))
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const outcomes = { loaded: 0, refused: 0 }
    for (const [n, source] of [CONVS, VITS].flatMap((file) => Array.from({ length: 15 }, (_, i) => [i, file] as const))) {
      const bytes = Buffer.from(readFileSync(source))
      const damaged = n % 3 === 0 ? bytes.subarray(0, Math.floor(random() * bytes.length)) : bytes
      for (let k = 0; k < 1 + n; k++) if (n % 3 !== 0) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256)
      const file = path.join(scratch, `damaged-${n}-${path.basename(source)}`)
      writeFileSync(file, damaged)
      copyFileSync(`${source}.json`, `${file}.json`)
      try {
        const damagedEngine = await createEngine({ models: { damaged: { type: 'piper', path: file } } })
        outcomes.loaded++
        await damagedEngine.close()
      } catch (error) {
        expect(error).toBeInstanceOf(TtsError)
        expect(error).toMatchObject({ code: 'MODEL_PACK_INVALID' })
        outcomes.refused++
      }
    }
    expect(outcomes.refused).toBeGreaterThan(0)
    expect(outcomes.loaded).toBeGreaterThan(0)
  })
})
