/**
 * A cloned voice on a neural pack speaks with the pack's closest voice, fitted to the clone's
 * sample by the voice transform (a pack has no pitch control of its own). Checked on the Piper
 * fixture, whose tones have a measurable pitch, and on the Kokoro export that takes whole speeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { voiceId } from '../helpers/engine.js'
import { sox, speech } from '../helpers/samples.js'
import { KOKORO_INT_SPEED, PIPER } from './fixtures.js'

const native = loadNative()
let engine: Engine<string>

beforeAll(async () => {
  engine = await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: PIPER }, kokoro_whole: { type: 'kokoro', path: KOKORO_INT_SPEED } } })
})
afterAll(() => engine.close())

const TEXT = 'Good morning. I would like to book a table for two people at seven tonight, near the window if possible.'

async function pitchOf(model: string, voice: string): Promise<number> {
  const pcm = await engine.synthesize({
    model_id: model, transcript: TEXT, voice: { mode: 'id', id: voice },
    output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 16000 },
  })
  return (await native.analysePcm(pcm, 16000)).pitchHz
}

const semitones = (a: number, b: number) => 12 * Math.log2(a / b)

describe('cloned voices on neural packs', () => {
  it("speak at their sample's pitch, where the pack voice they speak with is far from it", async () => {
    // Sarah (female, about 200 Hz) moved down 5 semitones, about 9 above the fixture voice's pitch:
    // within the transform's octave either way.
    const sample = sox(await speech(engine, 'Sarah', 'svc_flash_v1.0'), 'wav', [], ['pitch', '-500'])
    const target = (await native.analyseSample(sample, 60)).pitchHz
    const clone = await engine.voices.clone(sample, { name: 'High', language: 'en', gender: 'Female' })
    const packVoice = await pitchOf('svc_pro_v1.0', voiceId('Sarah'))  // a predefined voice: no transform
    expect(Math.abs(semitones(packVoice, target))).toBeGreaterThan(3)
    const cloned = await pitchOf('svc_pro_v1.0', clone.voice_id)
    expect(Math.abs(semitones(cloned, target))).toBeLessThan(1)
    // Fitted once: a second request is the same audio.
    const again = await pitchOf('svc_pro_v1.0', clone.voice_id)
    expect(again).toBe(cloned)
    await engine.voices.delete(clone.voice_id)
  })

  it('a pack that takes whole speeds only keeps the speed of 1 and still shifts the pitch', async () => {
    const sample = sox(await speech(engine, 'Sarah', 'svc_flash_v1.0'), 'wav', [], ['pitch', '-400', 'tempo', '1.3'])
    const clone = await engine.voices.clone(sample, { name: 'Fast', language: 'en', gender: 'Female' })
    const request = (voice: string) => engine.synthesize({
      model_id: 'kokoro_whole', transcript: TEXT, voice: { mode: 'id', id: voice },
      output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 24000 },
    })
    const [plain, cloned] = await Promise.all([request(voiceId('Sarah')), request(clone.voice_id)])
    expect(cloned.length).toBe(plain.length)  // the same pack voice at the same whole speed
    expect(cloned.equals(plain)).toBe(false)  // but transformed
    await engine.voices.delete(clone.voice_id)
  })

  it('engine.close() while a clone is being fitted ends its request with ENGINE_CLOSED', async () => {
    const closing = await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: PIPER } } })
    const sample = sox(await speech(closing, 'Sarah', 'svc_flash_v1.0'), 'wav', [], ['pitch', '-500'])
    const clone = await closing.voices.clone(sample, { name: 'Closing', language: 'en' })
    const request = closing.synthesize({ model_id: 'svc_pro_v1.0', transcript: TEXT, voice: { mode: 'id', id: clone.voice_id } })
    await new Promise((resolve) => setTimeout(resolve, 20))  // the fit's first render is under way
    await closing.close()
    await expect(request).rejects.toMatchObject({ code: 'ENGINE_CLOSED' })
  })
})
