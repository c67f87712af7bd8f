import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { bundledEspeakDataPath, fromNativeError, loadNative, type NativePlan } from '../../lib/native.js'

describe('native errors become TtsErrors', () => {
  it('an argument the addon refuses is SYNTHESIS_FAILED (the library should have caught it) with the native code', async () => {
    const native = loadNative()
    // The data the library starts espeak-ng with: one process, one espeak-ng.
    await native.init({ espeakDataPath: bundledEspeakDataPath() })
    let thrown: unknown
    try {
      new native.SynthStream({ backend: 'espeak', voice: 'en-us', speed: Number.NaN, requestSpeed: 1, pitch: 1, sampleRate: 44100, encoding: 'pcm_s16le', queueCapacity: 2, chunks: [] })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TypeError)
    const error = fromNativeError(thrown, 'synthesis could not start')
    expect(error).toBeInstanceOf(TtsError)
    expect(error.code).toBe('SYNTHESIS_FAILED')
    expect(error.extra).toEqual({ native_code: 'ERR_SVC_INVALID_ARGUMENT' })
  })

  it("the addon checks the request's speed again: outside 0.5 to 2, or not a number, is refused", async () => {
    const native = loadNative()
    await native.init({ espeakDataPath: bundledEspeakDataPath() })
    const plan: Omit<NativePlan, 'requestSpeed'> = { backend: 'espeak', voice: 'en-us', speed: 1, pitch: 1, sampleRate: 44100, encoding: 'pcm_s16le', queueCapacity: 2, chunks: [] }
    for (const requestSpeed of [0.49, 2.01, Number.POSITIVE_INFINITY, Number.NaN, '1' as unknown as number]) {
      let thrown: unknown
      try {
        new native.SynthStream({ ...plan, requestSpeed })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(TypeError)
      expect((thrown as { code?: string }).code).toBe('ERR_SVC_INVALID_ARGUMENT')
      expect((thrown as Error).message).toMatch(/plan\.requestSpeed/)
    }
    for (const requestSpeed of [0.5, 1, 2]) new native.SynthStream({ ...plan, requestSpeed }).cancel()
  })

  it('an optional field may be absent, never present with a wrong type: the TypeError names it', async () => {
    const native = loadNative()
    await native.init({ espeakDataPath: bundledEspeakDataPath() })
    const plan: NativePlan = { backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 22050, encoding: 'pcm_s16le', queueCapacity: 2, chunks: [{ pieces: [{ kind: 'text', text: 'Hi.' }] }] }
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ leading: 'yes' }, /SynthStream: plan\.leading must be a boolean/],
      [{ open: 1 }, /plan\.open must be a boolean/],
      [{ aheadSeconds: '5' }, /plan\.aheadSeconds must be a number/],
      [{ transform: 5 }, /plan\.transform must be an object/],
      [{ transform: { pitchScale: 1 } }, /plan\.transform\.formantScale is required/],
      [{ chunks: [{ pieces: [{ kind: 'text', text: 'Hi.' }], breakBefore: 1 }] }, /plan\.chunks\[0\]\.breakBefore must be a boolean/],
      [{ chunks: [{ pieces: [{ kind: 'text', text: 'Hi.', espeakVoice: 7 }] }] }, /plan\.chunks\[0\]\.pieces\[0\]\.espeakVoice must be a string/],
      [{ voice: undefined }, /plan\.voice is required/],
    ]
    for (const [patch, message] of bad) {
      let thrown: unknown
      try {
        new native.SynthStream({ ...plan, ...patch } as NativePlan).cancel()
      } catch (error) {
        thrown = error
      }
      expect(thrown, JSON.stringify(patch)).toBeInstanceOf(TypeError)
      expect((thrown as Error).message).toMatch(message)
      expect((thrown as { code?: string }).code).toBe('ERR_SVC_INVALID_ARGUMENT')
    }
    // Absent (or undefined) optional fields take their defaults.
    const stream = new native.SynthStream({ ...plan, leading: undefined, transform: undefined, aheadSeconds: undefined })
    expect((await stream.next())!.samples).toBeGreaterThan(0)
    stream.cancel()
  })

  it('maps each native code, and anything without one to SYNTHESIS_FAILED', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code })
    expect(fromNativeError(coded('ERR_SVC_ESPEAK_INIT'), 'init').code).toBe('NATIVE_LOAD_FAILED')
    expect(fromNativeError(coded('ERR_SVC_INPUT_TOO_LONG'), 'synth').code).toBe('INVALID_REQUEST')
    expect(fromNativeError(new RangeError('no code'), 'synth').code).toBe('SYNTHESIS_FAILED')
    expect(fromNativeError('a string', 'synth').message).toBe('synth: a string')
  })
})
