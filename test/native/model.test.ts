/**
 * A loaded model is a JS object that owns it (lib/native.ts NativeModel): plans and run() take the
 * object, unload() lets the model go once the streams speaking with it end, and nothing else
 * passes for one.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../lib/index.js'
import { loadNative, type NativeChunk, type NativeModel, type NativePlan } from '../../lib/native.js'
import { int64, float32, packOf, PIPER, piperConfig, piperIds } from '../neural/fixtures.js'

const engine = await createEngine({ models: { piper: { type: 'piper', path: PIPER } } })
afterAll(() => engine.close())

const native = loadNative()
const plan = (model: unknown): NativePlan => ({
  backend: 'neural', model: model as NativeModel, phonemizer: 'en-us', voice: '0', speed: 1, requestSpeed: 1, pitch: 1,
  sampleRate: 22050, encoding: 'pcm_s16le', queueCapacity: 1, chunks: [{ pieces: [{ kind: 'text', text: 'Hello there. How are you?' }] }],
})

function refusal(make: () => unknown): { code?: string; message: string; type: string } {
  try {
    make()
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message, type: (error as Error).constructor.name }
  }
  throw new Error('not refused')
}

async function samplesOf(stream: { next(): Promise<NativeChunk | null> }): Promise<number> {
  let samples = 0
  for (let chunk = await stream.next(); chunk; chunk = await stream.next()) samples += chunk.samples
  return samples
}

describe('a loaded model as an object', () => {
  it('speaks in plans and runs raw; after unload() the streams it began still end, and new ones and run() are refused', async () => {
    const { model } = packOf(engine, 'piper')
    const { inference } = piperConfig(PIPER)
    const ids = piperIds('həlˈoʊ', PIPER)
    const inputs = [int64('input', ids), int64('input_lengths', [BigInt(ids.length)], [1]), float32('scales', [inference.noise_scale!, inference.length_scale!, inference.noise_w!], [3])]
    const [output] = await model.run(inputs, ['output'])
    expect(output!.data.length).toBeGreaterThan(0)

    const running = new native.SynthStream(plan(model))
    const first = await running.next()
    model.unload()
    expect(first!.samples + (await samplesOf(running))).toBeGreaterThan(0)

    expect(refusal(() => new native.SynthStream(plan(model)))).toMatchObject({ code: 'ERR_SVC_INVALID_ARGUMENT', type: 'TypeError', message: expect.stringMatching(/plan\.model was unloaded/) })
    expect(refusal(() => model.run(inputs, ['output']))).toMatchObject({ code: 'ERR_SVC_INVALID_ARGUMENT', message: expect.stringMatching(/unloaded/) })
    model.unload()  // again: nothing more to let go
  })

  it('is the only thing a plan takes as its model: not a number, a plain object, or another native object', () => {
    const modelPrototype = Object.getPrototypeOf(packOf(engine, 'piper').model) as object
    const encoder = () => new native.AudioEncoder({ codec: 'flac', sampleRate: 16000, bitsPerSample: 16 })
    for (const model of [1, {}, encoder(), Object.create(modelPrototype), Object.setPrototypeOf(encoder(), modelPrototype)]) {
      expect(refusal(() => new native.SynthStream(plan(model)))).toMatchObject({
        code: 'ERR_SVC_INVALID_ARGUMENT', type: 'TypeError', message: expect.stringMatching(/plan\.model (must be an object|is not a model loadModel\(\) gave)/),
      })
    }
    expect(refusal(() => new native.SynthStream(plan(undefined)))).toMatchObject({ message: expect.stringMatching(/plan\.model is required/) })
  })
})
