// LiveKit's OpenAI plugin pointed at svc-tts: its TTS class asks for pcm, frames it at 24 kHz, and
// the frames it reports hold the speech of the text (a sentence, and several).
import { initializeLogger } from '@livekit/agents'
import { TTS } from '@livekit/agents-plugin-openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

initializeLogger({ pretty: false, level: 'warn' })
const engine = await testEngine()
const RATE = 24000

/** The frames the plugin reports for `text`: their rate, and their samples in total. */
async function synthesize(tts: TTS, text: string): Promise<{ rates: Set<number>; samples: number; frames: number; finals: number }> {
  const stream = tts.synthesize(text)
  const rates = new Set<number>()
  let samples = 0
  let frames = 0
  let finals = 0
  for await (const audio of stream) {
    rates.add(audio.frame.sampleRate)
    expect(audio.frame.channels).toBe(1)
    samples += audio.frame.samplesPerChannel
    frames++
    if (audio.final) finals++
  }
  return { rates, samples, frames, finals }
}

/** The engine's own length of the speech, in samples at 24 kHz (the plugin keeps whole 100 ms frames of it). */
async function expectedSamples(text: string): Promise<number> {
  const pcm = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: text, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', sample_rate: RATE } })
  return pcm.length / 2
}

describe('LiveKit\'s OpenAI plugin', () => {
  let server: Running
  let tts: TTS
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    tts = new TTS({ baseURL: `${server.base}/v1`, apiKey: KEY, model: 'tts-1', voice: 'alloy' })
  })
  afterAll(async () => {
    await tts.close()
    await server.close()
  })

  it.each([
    ['a sentence', 'Hello there, how are you today?'],
    ['several sentences', 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well.'],
  ])('synthesises %s as 24 kHz frames of the speech\'s length', async (_what, text) => {
    const { rates, samples, frames, finals } = await synthesize(tts, text)
    expect([...rates]).toEqual([RATE])
    expect(frames).toBeGreaterThan(5)
    expect(finals).toBe(1)
    // Whole frames of the speech: at most one frame (100 ms) short of it, never more than it.
    const expected = await expectedSamples(text)
    expect(samples).toBeLessThanOrEqual(expected)
    expect(expected - samples).toBeLessThan(RATE / 10)
    // And plausible for the words: about 2 to 4 words a second.
    const words = text.split(/\s+/).length
    expect(samples / RATE).toBeGreaterThan(words / 4)
    expect(samples / RATE).toBeLessThan(words / 1.5)
  })
})
