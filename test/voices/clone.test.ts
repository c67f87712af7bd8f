import { describe, expect, it } from 'vitest'
import { createEngine, type VoiceStore } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { SAMPLE_LIMITS } from '../../lib/voices/clone.js'
import { collect, joinChunks } from '../helpers/engine.js'
import { expectWordsStreamWithAudio } from '../helpers/word-streaming.js'
import { MP3_SAMPLE, sox, soxSynth, speech } from '../helpers/samples.js'

const engine = await createEngine()
const native = loadNative()
const sarah = await speech(engine)  // 16 kHz s16 WAV

const FORMATS: [string, () => Buffer, string][] = [
  ['WAV (44.1 kHz stereo s16)', () => sox(sarah, 'wav', [], ['rate', '44100', 'channels', '2']), 'audio/wav'],
  ['WAV (float)', () => sox(sarah, 'wav', ['-e', 'floating-point', '-b', '32']), 'audio/wav'],
  ['FLAC', () => sox(sarah, 'flac'), 'audio/flac'],
  ['Ogg Vorbis', () => sox(sarah, 'ogg'), 'audio/ogg'],
  ['MP3', () => MP3_SAMPLE, 'audio/mpeg'],
]

const store = (engine as unknown as { store: VoiceStore }).store

async function customIds(): Promise<string[]> {
  return (await engine.voices.list({ voice_type: 'CUSTOM', limit: 100 })).voices.map((v) => v.voice_id)
}

async function semitonesBetween(a: Buffer, bHz: number): Promise<number> {
  const measured = await native.analysePcm(a, 16000)
  return 12 * Math.log2(measured.pitchHz / bHz)
}

describe('cloning', () => {
  it.each(FORMATS)('clones from %s and speaks with the clone on every model', async (_name, make, mediaType) => {
    const record = await engine.voices.clone(make(), { name: 'Mine', language: 'en' })
    expect(record).toMatchObject({ voice_type: 'CUSTOM', name: 'Mine', language: 'en', gender: 'Female', description: '' })
    expect(await engine.voices.get(record.voice_id)).toEqual(record)
    for (const model_id of ['svc_flash_v1.0', 'svc_pro_v1.0'] as const) {
      const request = { model_id, transcript: 'Testing my new voice.', voice: { mode: 'id' as const, id: record.voice_id } }
      const chunks = await collect(engine.speak({ ...request, output_format: { encoding: 'pcm_f32le', sample_rate: 16000 } }))
      const words = chunks.flatMap((c) => c.words)
      expect(words.map((w) => w.text)).toEqual(['Testing', 'my', 'new', 'voice.'])
      const pcm = Buffer.concat(chunks.map((c) => c.audio))
      expect(pcm.length / 4).toBeGreaterThan(0.8 * 16000)
      expect(words.at(-1)!.endMs).toBeLessThanOrEqual((pcm.length / 4 / 16000) * 1000 + 1)
    }
    expect((await store.sample(record.voice_id))?.mediaType).toBe(mediaType)
    await engine.voices.delete(record.voice_id)
  })

  it('keeps the sample with the voice, in its real format', async () => {
    const record = await engine.voices.clone(MP3_SAMPLE, { name: 'Kept', language: 'en', gender: 'Female' })
    const kept = (await store.sample(record.voice_id))!
    expect(kept.mediaType).toBe('audio/mpeg')
    expect(kept.audio.equals(MP3_SAMPLE)).toBe(true)
    await engine.voices.delete(record.voice_id)
  })

  it("speaks at the sample's pitch, not the base voice's (a speaker shifted down 6 semitones)", async () => {
    const low = sox(sarah, 'wav', [], ['pitch', '-600'])
    const sample = await native.analyseSample(low, 60)
    const record = await engine.voices.clone(low, { name: 'Low', language: 'en' })
    expect(record.gender).toBe('Male')  // inferred from a median pitch below 160 Hz
    for (const model_id of ['svc_flash_v1.0', 'svc_pro_v1.0'] as const) {
      const pcm = await engine.synthesize({
        model_id,
        transcript: 'Good morning. I would like to book a table for two people at seven tonight, near the window if possible.',
        voice: { mode: 'id', id: record.voice_id },
        output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 16000 },
      })
      expect(Math.abs(await semitonesBetween(pcm, sample.pitchHz))).toBeLessThan(2)
    }
    await engine.voices.delete(record.voice_id)
  })

  it("streams: a clone's transform passes audio on as the backend makes it, not once its chunk is done", async () => {
    const low = sox(sarah, 'wav', [], ['pitch', '-600'])
    const record = await engine.voices.clone(low, { name: 'Streaming', language: 'en' })
    // One clause, several seconds long: one chunk on either backend.
    const transcript = 'I would like to book a table for two people at seven tonight near the window if that is possible for you'
    for (const model_id of ['svc_flash_v1.0', 'svc_pro_v1.0'] as const) {
      const stretches = await collect(engine.speak({
        model_id, transcript, voice: { mode: 'id', id: record.voice_id }, output_format: { encoding: 'pcm_f32le', sample_rate: 16000 },
      }))
      const firstChunk = joinChunks(stretches)[0]!
      expect(firstChunk.samples).toBeGreaterThan(16000 * 4)
      expect(stretches[0]!.samples).toBeLessThan(firstChunk.samples / 4)
      expect(stretches.findIndex((s) => s.endsChunk)).toBeGreaterThanOrEqual(4)
      // Its words too: each with the audio it times, through the transform's delay.
      expectWordsStreamWithAudio(stretches, 16000)
    }
    await engine.voices.delete(record.voice_id)
  })

  describe('rejects bad samples with a clear error and keeps nothing', () => {
    const speechOf = (seconds: number) => sox(sarah, 'wav', [], ['trim', '0.2', String(seconds)])
    const cases: [string, () => Buffer, string, number][] = [
      ['silence', () => soxSynth(['trim', '0', '5']), 'SAMPLE_TOO_SHORT', 400],
      ['1 s of speech', () => speechOf(1), 'SAMPLE_TOO_SHORT', 400],
      ['white noise', () => soxSynth(['synth', '5', 'whitenoise', 'vol', '0.3']), 'SAMPLE_NOT_SPEECH', 400],
      ['a text file labelled as audio', () => Buffer.from('RIFF....WAVE this is not audio at all '.repeat(100)), 'UNSUPPORTED_AUDIO', 400],
      ['a WAV truncated inside its header', () => sarah.subarray(0, 30), 'UNSUPPORTED_AUDIO', 400],
      ['a WAV truncated to 1 s', () => sarah.subarray(0, 44 + 16000 * 2), 'SAMPLE_TOO_SHORT', 400],
      ['an MP3 cut off after 40 bytes', () => MP3_SAMPLE.subarray(0, 40), 'UNSUPPORTED_AUDIO', 400],
      ['61 s of audio', () => sox(sarah, 'wav', [], ['repeat', '10', 'trim', '0', '61']), 'SAMPLE_TOO_LONG', 400],
      ['a 200 MB upload', () => Buffer.alloc(200 * 1024 * 1024), 'SAMPLE_TOO_LARGE', 413],
    ]
    it.each(cases)('%s', async (_name, make, code, status) => {
      const before = await customIds()
      await expect(engine.voices.clone(make(), { name: 'Bad', language: 'en' })).rejects.toMatchObject({ code, status })
      expect(await customIds()).toEqual(before)
    })

    it('rejects bad fields before looking at the audio', async () => {
      await expect(engine.voices.clone(sarah, { language: 'en' } as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
      await expect(engine.voices.clone(sarah, { name: 'x', language: 'xx' as never })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
      await expect(engine.voices.clone('not a buffer' as unknown as Buffer, { name: 'x', language: 'en' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
      expect(await customIds()).toEqual([])
    })

    it('documents its limits', () => {
      expect(SAMPLE_LIMITS).toEqual({ minSpeechSeconds: 3, maxSeconds: 60, maxBytes: 20 * 1024 * 1024 })
    })
  })
})
