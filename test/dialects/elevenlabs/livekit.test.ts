// LiveKit's ElevenLabs plugin pointed at svc-tts: its one-shot synthesis (POST .../stream) and its
// streaming synthesis (one multi-stream-input socket, a context per turn) report audio frames of a
// plausible length, with the words' times it reads from the alignment.
import { initializeLogger } from '@livekit/agents'
import { TTS } from '@livekit/agents-plugin-elevenlabs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { bounded, collect } from '../../helpers/livekit.js'
import { KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

initializeLogger({ pretty: false, level: 'warn' })
const engine = await testEngine()

describe('LiveKit\'s ElevenLabs TTS against svc-tts', () => {
  let server: Running
  let tts: TTS
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    tts = new TTS({ apiKey: KEY, baseURL: `${server.base}/v1`, voiceId: voiceId('Sarah'), model: 'eleven_flash_v2_5', encoding: 'pcm_22050' })
  })
  afterAll(async () => {
    await tts.close()
    await server.close()
  })

  it('synthesize: one sentence as frames at 22.05 kHz of a plausible length', async () => {
    const result = await bounded(collect(tts.synthesize('The birch canoe slid on the smooth planks.')))
    expect(result.sampleRate).toBe(22050)
    expect(result.frames).toBeGreaterThan(5)
    expect(result.seconds).toBeGreaterThan(1.2)
    expect(result.seconds).toBeLessThan(6)
  })

  it('stream: text pushed as an LLM writes it, spoken per sentence with word times, in two turns on one socket', async () => {
    for (const turn of [['The birch canoe ', 'slid on the smooth planks. ', 'Glue the sheet ', 'to the dark blue background. ', 'It is easy to tell the depth of a well.'], ['A second turn follows on the same socket.']]) {
      const stream = tts.stream()
      for (const piece of turn) stream.pushText(piece)
      stream.endInput()
      const result = await bounded(collect(stream))
      const words = turn.join('').split(/\s+/).length
      expect(result.sampleRate).toBe(22050)
      expect(result.seconds).toBeGreaterThan(words * 0.15)
      expect(result.seconds).toBeLessThan(words * 0.8)
      expect(result.words.join(' ')).toBe(turn.join('').trim())
    }
  })
})
