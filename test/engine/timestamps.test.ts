import { describe, expect, it } from 'vitest'
import { decodeWav, rms, s16, zeroRuns } from '../helpers/audio.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import type { SynthesisRequest } from '../../lib/index.js'

const RATE = 16000
const TRANSCRIPT = "Hello world, this is a test.<break time='1s'/> Timestamps follow the audio closely."

describe('word timestamps', async () => {
  const engine = await testEngine()
  for (const model of ['svc_flash_v1.5', 'svc_pro_v1.0'] as const) {
    it(`${model}: one entry per word, in order, inside the audio, matching silence and speech`, async () => {
      const { audio_base64, alignment } = await engine.synthesizeWithTimestamps({
        model_id: model,
        transcript: TRANSCRIPT,
        voice: { mode: 'id', id: voiceId('Sarah') },
        output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: RATE },
      })
      const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
      const durationMs = (samples.length / RATE) * 1000
      const { words, word_start_times_milliseconds: starts, word_end_times_milliseconds: ends } = alignment

      expect(words.map((w) => w.replace(/[^\p{L}]/gu, ''))).toEqual(
        ['Hello', 'world', 'this', 'is', 'a', 'test', 'Timestamps', 'follow', 'the', 'audio', 'closely'],
      )
      expect(starts.length).toBe(words.length)
      expect(ends.length).toBe(words.length)
      for (let i = 0; i < words.length; i++) {
        expect(starts[i]).toBeLessThanOrEqual(ends[i]!)
        expect(ends[i]).toBeLessThanOrEqual(Math.ceil(durationMs))
        if (i > 0) expect(starts[i]).toBeGreaterThanOrEqual(ends[i - 1]!)
      }

      // The break: exactly one second of digital silence, and "Timestamps" starts after it.
      const second = RATE
      const runs = zeroRuns(samples, second - 1)
      expect(runs.length).toBe(1)
      const [silenceStart, silenceEnd] = runs[0]!
      expect(silenceEnd - silenceStart).toBeGreaterThanOrEqual(second - 1)
      expect(silenceEnd - silenceStart).toBeLessThanOrEqual(second + 1)
      const timestamps = words.findIndex((w) => w.startsWith('Timestamps'))
      expect(starts[timestamps]!).toBeGreaterThanOrEqual(Math.floor((silenceEnd / RATE) * 1000) - 1)
      expect(ends[timestamps - 1]!).toBeLessThanOrEqual(Math.ceil((silenceStart / RATE) * 1000) + 1)

      // Each word's span holds speech: far louder than the break.
      for (let i = 0; i < words.length; i++) {
        const from = Math.floor((starts[i]! / 1000) * RATE)
        const to = Math.ceil((ends[i]! / 1000) * RATE)
        expect(to - from).toBeGreaterThan(RATE * 0.04)
        expect(rms(samples, from, to)).toBeGreaterThan(200)
      }
    })
  }

  it('streamed chunks carry the same words as the one-shot alignment', async () => {
    const request: SynthesisRequest = { model_id: 'svc_pro_v1.0', transcript: TRANSCRIPT, voice: { mode: 'id', id: voiceId('Kal') } }
    const streamed: string[] = []
    for await (const chunk of engine.speak(request)) streamed.push(...chunk.words.map((w) => w.text))
    const { alignment } = await engine.synthesizeWithTimestamps(request)
    expect(streamed).toEqual(alignment.words)
  })
})
