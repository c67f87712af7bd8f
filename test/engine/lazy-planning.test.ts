/**
 * Lazy planning: a long transcript's first sentence is synthesised before the rest of it is
 * planned, and what is found wrong in the rest (bad markup, too much audio) ends the stream with
 * the same TtsError as before, while one-shot calls still reject without audio.
 */
import { performance as nodePerformance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { createEngine, TtsError, type SpeechChunk, type SynthesisRequest } from '../../lib/index.js'
import { planSpeech, SpeechPlanner } from '../../lib/text/index.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { watchStalls } from '../helpers/stall.js'

const SENTENCE = 'The birch canoe slid on the smooth planks. '
const sarah = (transcript: string): SynthesisRequest => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', sample_rate: 16000 } })

/** Reads a stream to its end or its error: the chunks that came, and what was thrown. */
async function readAll(stream: AsyncIterable<SpeechChunk>): Promise<{ chunks: SpeechChunk[]; error: unknown }> {
  const chunks: SpeechChunk[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk)
    return { chunks, error: undefined }
  } catch (error) {
    return { chunks, error }
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (error: unknown) => error)
}

describe('SpeechPlanner.take(budget)', () => {
  it('plans only the whole sentences within the budget and says that more is ready', async () => {
    const planner = new SpeechPlanner({ language: 'en', backend: 'espeak' })
    planner.write('One two three. Four five. Six seven eight nine ten eleven.')
    planner.end()
    const first = await planner.take(20)
    expect(first.words.map((w) => w.text)).toEqual(['One', 'two', 'three.'])
    expect(planner.limited).toBe(true)
    const second = await planner.take(3)  // shorter than the next sentence: that sentence is planned whole
    expect(second.words.map((w) => [w.text, w.start])).toEqual([['Four', 15], ['five.', 20]])
    expect(planner.limited).toBe(true)
    const rest = await planner.take()
    expect(rest.words.map((w) => w.text)).toEqual(['Six', 'seven', 'eight', 'nine', 'ten', 'eleven.'])
    expect(planner.limited).toBe(false)
  })

  it('gives the plan of the whole text however small the budgets, tags and a flush included', async () => {
    const text = "Pay $3.50 to <phonemes>ˈtʃiːz</phonemes> now.<break time='400ms'/> Call <digits>5 5 5</digits>, Dr. Smith. Bye. Unfinished"
    const whole = new SpeechPlanner({ language: 'en', backend: 'espeak' })
    whole.write(text)
    whole.flush()
    const expected = await whole.take()
    for (const budget of [1, 5, 17, 40]) {
      const planner = new SpeechPlanner({ language: 'en', backend: 'espeak' })
      planner.write(text)
      planner.flush()
      const words = []
      const chunks = []
      do {
        const plan = await planner.take(budget)
        words.push(...plan.words)
        chunks.push(...plan.chunks)
      } while (planner.limited)
      expect({ words, chunks }, `budget ${budget}`).toEqual(expected)
    }
  })
})

describe('planning many long transcripts at once', () => {
  it('holds the event loop one slice a turn, not one slice for each transcript', async () => {
    const transcript = SENTENCE.repeat(1000)
    await planSpeech(transcript, { language: 'en', backend: 'espeak' })  // compiled and warm
    const stalls = watchStalls()
    try {
      const plans = await Promise.all(Array.from({ length: 16 }, () => planSpeech(transcript, { language: 'en', backend: 'espeak' })))
      for (const plan of plans) expect(plan.words).toHaveLength(8000)
      // Each plan takes a few slices; taken all at once, a turn of 16 slices would stall for 60 ms or more.
      expect(stalls.worstMs()).toBeLessThan(50)
    } finally {
      stalls.stop()
    }
  })
})

describe('a long transcript is synthesised before it is all planned', async () => {
  const engine = await testEngine()

  it('a reader that leaves while the rest is being planned stops the planning', async () => {
    const transcript = SENTENCE.repeat(2000)
    const busyMs = async (leave: boolean): Promise<number> => {
      const iterator = engine.speak(sarah(transcript))[Symbol.asyncIterator]()
      // Past the first stretch: planning the rest has begun.
      for (let stretches = 0; stretches < 3; stretches++) await iterator.next()
      if (leave) await iterator.return(undefined)
      const before = nodePerformance.eventLoopUtilization()
      await new Promise((resolve) => setTimeout(resolve, 300))
      const { active } = nodePerformance.eventLoopUtilization(before)
      if (!leave) await iterator.return(undefined)
      return active
    }
    // Planning the rest of 2000 sentences holds the event loop for tens of milliseconds while the
    // reader stays (about 20 ms went on after it had left, before the session stopped its
    // planner), and for at most one slice of 4 ms once it has left.
    const staying = await busyMs(false)
    const left = await busyMs(true)
    expect(staying).toBeGreaterThan(10)
    expect(left).toBeLessThan(10)
  })

  it('a bad tag at the end of 2000 sentences ends the stream with INVALID_MARKUP after its first audio', async () => {
    const transcript = SENTENCE.repeat(2000) + "<break time='soon'/>"
    const { chunks, error } = await readAll(engine.speak(sarah(transcript)))
    expect(chunks.length).toBeGreaterThan(0)  // planned whole first, nothing would have come
    expect(chunks[0]!.samples).toBeGreaterThan(0)
    expect(error).toBeInstanceOf(TtsError)
    expect(error).toMatchObject({ code: 'INVALID_MARKUP', extra: { offset: SENTENCE.length * 2000 } })
    // One-shot calls still reject, with no audio.
    expect(await rejection(engine.synthesize(sarah(transcript)))).toMatchObject({ code: 'INVALID_MARKUP' })
    expect(await rejection(engine.synthesizeWithTimestamps(sarah(transcript)))).toMatchObject({ code: 'INVALID_MARKUP' })
  })

  it('a bad tag in the first sentence is found before any audio', async () => {
    const { chunks, error } = await readAll(engine.speak(sarah("Wait <break time='soon'/> here. " + SENTENCE.repeat(2000))))
    expect(chunks).toEqual([])
    expect(error).toMatchObject({ code: 'INVALID_MARKUP', extra: { offset: 5 } })
  })

  it('a transcript found to be over maxAudioSeconds after its first sentence ends with AUDIO_TOO_LONG', async () => {
    const limited = await createEngine({ maxAudioSeconds: 30 })
    try {
      const transcript = SENTENCE.repeat(100)  // about 290 s estimated; its first sentence about 3
      const { chunks, error } = await readAll(limited.speak(sarah(transcript)))
      expect(chunks.length).toBeGreaterThan(0)
      expect(error).toBeInstanceOf(TtsError)
      expect(error).toMatchObject({ code: 'AUDIO_TOO_LONG', extra: { max_seconds: 30 } })
      const seconds = chunks.reduce((sum, chunk) => sum + chunk.samples, 0) / 16000
      expect(seconds).toBeGreaterThan(1)
      expect(seconds).toBeLessThan(10)  // the first take's audio, not the 30 s the limit would allow
      expect(await rejection(limited.synthesize(sarah(transcript)))).toMatchObject({ code: 'AUDIO_TOO_LONG' })
    } finally {
      await limited.close()
    }
  })

  it('long text with nothing to say is NO_SPEECH before any audio, and speech after it is spoken', async () => {
    const silent = await readAll(engine.speak(sarah('... !? — '.repeat(100))))
    expect(silent.chunks).toEqual([])
    expect(silent.error).toMatchObject({ code: 'NO_SPEECH' })
    const late = await readAll(engine.speak(sarah('... !? — '.repeat(100) + 'Hello there.')))
    expect(late.error).toBeUndefined()
    expect(late.chunks.flatMap((chunk) => chunk.words.map((w) => w.text))).toEqual(['Hello', 'there.'])
  })

  it('streams a long transcript whole: every word once, in order, with gapless offsets', async () => {
    const transcript = SENTENCE.repeat(60)
    const { chunks, error } = await readAll(engine.speak(sarah(transcript)))
    expect(error).toBeUndefined()
    const words = chunks.flatMap((chunk) => chunk.words)
    expect(words.map((w) => w.text)).toEqual(transcript.trim().split(' '))
    expect(words.map((w) => w.index)).toEqual(words.map((_, i) => i))
    let offset = 0
    for (const chunk of chunks) {
      expect(chunk.offsetSamples).toBe(offset)
      offset += chunk.samples
    }
  })
})
