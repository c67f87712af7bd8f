import { describe, expect, it } from 'vitest'
import { LANGUAGES, type SynthesisRequest } from '../../lib/index.js'
import { decodeWav, rms, s16 } from '../helpers/audio.js'
import { firstVoiceOf, testEngine } from '../helpers/engine.js'
import { PARK_SENTENCES } from '../helpers/sentences.js'

describe('every language of svc_flash_v1.0 speaks with its default voice', async () => {
  const engine = await testEngine()
  for (const language of LANGUAGES) {
    it(`${language}: ${PARK_SENTENCES[language]}`, async () => {
      const request: SynthesisRequest = {
        model_id: 'svc_flash_v1.0',
        transcript: PARK_SENTENCES[language],
        voice: { mode: 'id', id: firstVoiceOf(language) },
        output_format: { container: 'wav', sample_rate: 22050 },
      }
      const { audio_base64, alignment } = await engine.synthesizeWithTimestamps(request)
      const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
      const seconds = samples.length / 22050
      // A spoken sentence: neither a blip nor the "Chinese letter" spelling-out of unread script.
      expect(seconds).toBeGreaterThan(1)
      expect(seconds).toBeLessThan(language === 'ja' || language === 'zh' ? 6 : 8)
      expect(rms(samples)).toBeGreaterThan(300)
      expect(alignment.words.length).toBeGreaterThan(0)
      const durationMs = seconds * 1000
      alignment.word_end_times_milliseconds.forEach((end) => expect(end).toBeLessThanOrEqual(Math.ceil(durationMs)))
    })
  }
})
