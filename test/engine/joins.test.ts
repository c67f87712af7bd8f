/**
 * Chunks are separate utterances, each resampled by one stateful resampler that takes every
 * stretch of it as the backend makes it, flushed at the utterance's end. That costs nothing at
 * the joins only because every utterance begins and ends in the backend's own silence: checked
 * here for every predefined voice, on espeak-ng and on flite, resampled to 24 kHz.
 */
import { describe, expect, it } from 'vitest'
import { LANGUAGES, PREDEFINED_VOICES, type Language, type SpeechChunk } from '../../lib/index.js'
import { collect, joinChunks, testEngine } from '../helpers/engine.js'
import { PARK_SENTENCES } from '../helpers/sentences.js'

const RATE = 24_000
// A resampler started afresh assumes silence before its first sample, and a flushed one after
// its last: where the audio before a join is silent, one resampler over both chunks would give
// the same samples. (The audio after a join may start at once: speech that follows a pause.)
const BEFORE_JOIN = RATE / 250  // 4 ms, longer than the resampling filter
const QUIET = Math.round(10 ** (-50 / 20) * 32768)  // -50 dBFS: the backends' edge silence and noise floor (awb's reaches -53)

/** The loudest sample in the 4 ms before each join between two chunks. */
function loudestAtJoins(chunks: SpeechChunk[]): number[] {
  const audio = Buffer.concat(chunks.map((chunk) => chunk.audio))
  const samples = new Int16Array(audio.buffer, audio.byteOffset, audio.length / 2)
  return chunks.slice(1).map(({ offsetSamples }) => {
    let loudest = 0
    for (let i = Math.max(0, offsetSamples - BEFORE_JOIN); i < offsetSamples; i++) {
      loudest = Math.max(loudest, Math.abs(samples[i]!))
    }
    return loudest
  })
}

const PARAGRAPHS = Object.fromEntries(LANGUAGES.map((language) => [language, `${PARK_SENTENCES[language]} ${PARK_SENTENCES[language]}`])) as Record<Language, string>
// flite speaks a first sentence over 60 characters as two chunks, cut at its comma.
const ENGLISH = 'Glue the sheet to the dark blue background of the poster, then let it dry for an hour. The birch canoe slid on the smooth planks. It is easy to tell the depth of a well.'

describe('chunk joins lie in silence', async () => {
  const engine = await testEngine()
  const cases = [
    ...PREDEFINED_VOICES.map((voice) => ({ voice, model: 'svc_flash_v1.0' as const, transcript: PARAGRAPHS[voice.record.language] })),
    ...PREDEFINED_VOICES.filter((voice) => voice.rendering.flite).map((voice) => ({ voice, model: 'svc_pro_v1.0' as const, transcript: ENGLISH })),
  ]
  for (const { voice, model, transcript } of cases) {
    it(`${voice.record.name} (${voice.record.language}, ${model})`, async () => {
      const stretches = await collect(engine.speak({
        model_id: model,
        transcript,
        voice: { mode: 'id', id: voice.record.voice_id },
        output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: RATE },
      }))
      const chunks = joinChunks(stretches)
      expect(chunks.length).toBeGreaterThanOrEqual(model === 'svc_pro_v1.0' ? 4 : 3)
      for (const loudest of loudestAtJoins(chunks)) expect(loudest).toBeLessThan(QUIET)
    })
  }
})
