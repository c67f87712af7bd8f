// engine.speakFrom(request, k): the chunks of speak() from the k-th on, byte for byte, without
// synthesising those before (what a long job resumes with after its worker died).
import { describe, expect, it } from 'vitest'
import type { SpeechChunk, SynthesisRequest } from '../../lib/index.js'
import { collect, joinChunks, testEngine, voiceId } from '../helpers/engine.js'

const engine = await testEngine()
// A first sentence over 60 characters (flite speaks its first clause alone), breaks whose edges
// shape the chunks beside them, and enough sentences for several takes.
const TEXT = [
  'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background.',
  "It is easy to tell the depth of a well. <break time='300ms'/> Rice is often served in round bowls.",
  'The juice of lemons makes fine punch, and the box was thrown beside the parked truck.',
  ...Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} holds four hens, and the wide road shimmered in the hot sun.`),
].join(' ')

const requests: [string, SynthesisRequest][] = [
  ['espeak-ng at 8 kHz', { model_id: 'svc_flash_v1.5', transcript: TEXT, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 8000 } }],
  ['flite at 16 kHz, float', { model_id: 'svc_pro_v1.0', transcript: TEXT, voice: { mode: 'id', id: voiceId('Kal') }, output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 16000 } }],
]

const audioOf = (chunks: SpeechChunk[]) => Buffer.concat(chunks.map((chunk) => chunk.audio))

describe.each(requests)('speakFrom on %s', (_, request) => {
  it('gives the chunks of speak() from the one asked for, byte for byte, and times the words it speaks from its own start', async () => {
    const whole = joinChunks(await collect(engine.speak(request)))
    expect(whole.length).toBeGreaterThan(15)
    for (const first of [1, 2, 3, Math.floor(whole.length / 2), whole.length - 1]) {
      const tail = joinChunks(await collect(engine.speakFrom(request, first)))
      expect(tail.length, `from chunk ${first}`).toBe(whole.length - first)
      expect(audioOf(tail).equals(audioOf(whole.slice(first))), `from chunk ${first}`).toBe(true)
      const spoken = tail.flatMap((chunk) => chunk.words)
      const expected = whole.slice(first).flatMap((chunk) => chunk.words)
      expect(spoken.map((word) => word.index)).toEqual(expected.map((word) => word.index))
      const shiftMs = expected[0]!.startMs - spoken[0]!.startMs
      expect(Math.abs(shiftMs - (whole[first]!.offsetSamples * 1000) / request.output_format!.sample_rate!)).toBeLessThanOrEqual(1)
    }
    expect(await collect(engine.speakFrom(request, whole.length))).toEqual([])
  })
})

it('refuses a first chunk that is not a whole number', async () => {
  await expect(collect(engine.speakFrom(requests[0]![1], -1))).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
  await expect(collect(engine.speakFrom(requests[0]![1], 1.5))).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
})
