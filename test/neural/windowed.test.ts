/**
 * A Piper voice cut before its vocoder (/dec/conv_pre/Conv, as official exports name it): a
 * request's first audio is the vocoder's first window, and every sample is still the whole
 * model's (the fixture: scripts/make-neural-fixtures.py piper_vits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId, type Engine } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { collect } from '../helpers/engine.js'
import { expectWordsStreamWithAudio } from '../helpers/word-streaming.js'
import { as16Bit, f32, FIXTURES, float32, int64, maxAbsDifference, packOf, PIPER, piperConfig, piperIds, rawRun } from './fixtures.js'

const VITS = `${FIXTURES}/en_US-fixturevits-medium.onnx`
/** The same, with a vocoder that subtracts its mean over time: every frame reaches every sample. */
const VITS_NORMALISED = `${FIXTURES}/en_US-fixturevitsnorm-medium.onnx`
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'

let engine: Engine<string>

beforeAll(async () => {
  engine = await createEngine({
    models: {
      windowed: { type: 'piper', path: VITS },
      whole: { type: 'piper', path: VITS, windowedVocoder: false },
      // The file as ONNX Runtime runs it unchanged: one session, convolutions not lifted.
      asFile: { type: 'piper', path: VITS, windowedVocoder: false, liftConvolutions: false },
      plain: { type: 'piper', path: PIPER },
      normalised: { type: 'piper', path: VITS_NORMALISED },
    },
  })
})
afterAll(() => engine.close())

const pack = (id: string) => packOf(engine, id)

async function speak(model: string, speaker: string, transcript = TEXT) {
  return collect(engine.speak({
    model_id: model, transcript, voice: { mode: 'id', id: packVoiceId(pack(model), speaker) },
    output_format: { encoding: 'pcm_f32le', sample_rate: 22050 },
  }))
}

function rawInputs(ids: bigint[], sid: number) {
  const { inference } = piperConfig(VITS)
  return [
    int64('input', ids),
    int64('input_lengths', [BigInt(ids.length)], [1]),
    float32('scales', [inference.noise_scale!, inference.length_scale!, inference.noise_w!], [3]),
    int64('sid', [BigInt(sid)], [1]),
  ]
}

describe('the windowed vocoder', () => {
  it('is used where the model has the vocoder node, and says why not elsewhere', () => {
    expect(pack('windowed').info).toMatchObject({ windowedVocoder: true })
    expect(pack('whole').info).toMatchObject({ windowedVocoder: false, windowedVocoderWhy: expect.stringContaining('windowedVocoder: false') })
    expect(pack('plain').info).toMatchObject({ windowedVocoder: false, windowedVocoderWhy: 'no node named /dec/conv_pre/Conv' })
    expect(pack('normalised').info).toMatchObject({ windowedVocoder: false, windowedVocoderWhy: 'the vocoder reaches 32 frames' })
    // The pack describes the model it was given, not its parts.
    expect(pack('windowed').info.inputs).toEqual(pack('whole').info.inputs)
    expect(pack('windowed').info.outputs).toEqual(pack('whole').info.outputs)
  })

  it('gives the whole model\'s audio and words, the first chunk in two windows', async () => {
    for (const speaker of ['dan', 'eve']) {
      const windowed = await speak('windowed', speaker)
      const whole = await speak('whole', speaker)
      const audio = f32(Buffer.concat(windowed.map((c) => c.audio)))
      const reference = f32(Buffer.concat(whole.map((c) => c.audio)))
      expect(audio.length).toBe(reference.length)
      expect(maxAbsDifference(audio, reference)).toBe(0)
      expect(windowed.flatMap((c) => c.words)).toEqual(whole.flatMap((c) => c.words))
      expectWordsStreamWithAudio(windowed, 22050, true)
    }
  })

  it('falls back to the whole model where windows would change the audio, and it still speaks', async () => {
    const ids = piperIds(`${await loadNative().phonemize('Hello there', 'en-us', true)}.`, VITS_NORMALISED)
    const chunks = await speak('normalised', 'default', 'Hello there.')
    const { inference } = piperConfig(VITS_NORMALISED)
    const [direct] = await rawRun(pack('normalised').model, [
      int64('input', ids), int64('input_lengths', [BigInt(ids.length)], [1]),
      float32('scales', [inference.noise_scale!, inference.length_scale!, inference.noise_w!], [3]),
    ], ['output'])
    const engineAudio = f32(Buffer.concat(chunks.map((c) => c.audio)))
    expect(engineAudio.length).toBe(direct!.length)
    expect(maxAbsDifference(engineAudio, as16Bit(direct!))).toBeLessThan(1e-5)
  })

  it('equals a direct ONNX Runtime run of the whole model on the same ids', async () => {
    const native = loadNative()
    const phonemes = `${await native.phonemize('The birch canoe slid on the smooth planks', 'en-us', true)}.`
    const ids = piperIds(phonemes, VITS)
    const chunks = await speak('windowed', 'eve', 'The birch canoe slid on the smooth planks.')
    const [direct] = await rawRun(pack('whole').model, rawInputs(ids, 1), ['output'])
    const engineAudio = f32(Buffer.concat(chunks.map((c) => c.audio)))
    expect(engineAudio.length).toBe(direct!.length)
    expect(maxAbsDifference(engineAudio, as16Bit(direct!))).toBeLessThan(1e-5)
    // The graph the packs run (convolutions lifted to 2-D) and the file run unchanged: the same
    // floats to 1e-5, so the same 16-bit samples but where a float sits a hair from a step's middle.
    const [file] = await rawRun(pack('asFile').model, rawInputs(ids, 1), ['output'])
    expect(maxAbsDifference(direct!, file!)).toBeLessThan(1e-5)
    expect(maxAbsDifference(engineAudio, as16Bit(file!))).toBeLessThanOrEqual(1 / 32768)
    // The raw call on the windowed pack runs its two parts in turn: the same floats, the same durations.
    const outputs = ['output', '/dp/Ceil_output_0']
    const parts = await rawRun(pack('windowed').model, rawInputs(ids, 1), outputs)
    const model = await rawRun(pack('whole').model, rawInputs(ids, 1), outputs)
    expect(maxAbsDifference(parts[0]!, model[0]!)).toBeLessThan(1e-5)
    expect(Array.from(parts[1]!)).toEqual(Array.from(model[1]!))
  })

  it('stops a request aborted inside its first chunk', async () => {
    const controller = new AbortController()
    const stream = engine.speak({
      model_id: 'windowed', transcript: TEXT, voice: { mode: 'id', id: packVoiceId(pack('windowed'), 'dan') },
      output_format: { encoding: 'pcm_s16le', sample_rate: 22050 },
    }, { signal: controller.signal })
    let received = 0
    await expect((async () => {
      for await (const chunk of stream) {
        received += chunk.samples
        controller.abort()
      }
    })()).rejects.toMatchObject({ code: 'ABORTED' })
    expect(received).toBeGreaterThan(0)
    expect(received).toBeLessThan(f32(Buffer.concat((await speak('windowed', 'dan')).map((c) => c.audio))).length)
  })
})
