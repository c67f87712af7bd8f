import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { fromNativeError, loadNative, type NativePlan } from '../../lib/native.js'

describe('native errors become TtsErrors', () => {
  it('an argument the addon refuses is SYNTHESIS_FAILED (the library should have caught it) with the native code', async () => {
    const native = loadNative()
    await native.init({})
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
    await native.init({})
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

  it('maps each native code, and anything without one to SYNTHESIS_FAILED', () => {
    const coded = (code: string) => Object.assign(new Error('x'), { code })
    expect(fromNativeError(coded('ERR_SVC_ESPEAK_INIT'), 'init').code).toBe('NATIVE_LOAD_FAILED')
    expect(fromNativeError(coded('ERR_SVC_INPUT_TOO_LONG'), 'synth').code).toBe('INVALID_REQUEST')
    expect(fromNativeError(new RangeError('no code'), 'synth').code).toBe('SYNTHESIS_FAILED')
    expect(fromNativeError('a string', 'synth').message).toBe('synth: a string')
  })
})
