import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { planSpeech, type PlanOptions, type SpeechPlan } from '../../lib/text/index.js'
import { random } from '../helpers/random.js'


const FRAGMENTS = [
  '<', '>', '/', '</', '/>', "'", '"', '=', ' ', '  ', '\n', '\t', '.', ',', '!', '?', '。', '，', '-', '$', '€', '%', ':',
  '<break', "<break time='", "'/>", '<break time="1s"/>', "<break time='500ms'/>", "<break time='0.0001s'/>", "<break time='1e3ms'/>",
  '<phonemes>', '</phonemes>', 'ˈtʃiːz', 'həˈloʊ', 'ʕ', 'ː', 'ˌ', '<digits>', '</digits>', '4 1 5', '12', '3.50', '1,234', '12/05/2023',
  '555-1234', 'Dr.', 'hello', 'world', 'café', '你好', '银行', 'iPhone', '今日は', 'カタカナ', 'привет', 'مرحبا', 'שלום',
  '😀', '𝄞', '\u0301', '\u200d', '\ud800', '\udfff', '\u0000', '&lt;', '<b>', '<speak>', '<<', '>>', '<a', 'time=', '\\',
]

function randomTranscript(next: () => number): string {
  const length = Math.floor(next() * 24)
  let text = ''
  for (let i = 0; i < length; i++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]
  return text
}

function checkPlan(transcript: string, plan: SpeechPlan): void {
  for (const word of plan.words) expect(transcript.slice(word.start, word.end)).toBe(word.text)
  for (const piece of plan.chunks.flatMap((chunk) => chunk.pieces)) {
    if (piece.kind === 'break') expect(piece.ms).toBeGreaterThanOrEqual(0)
    if (piece.kind === 'phonemes') expect(piece.word).toBeLessThan(plan.words.length)
    if (piece.kind !== 'text') continue
    const length = Array.from(piece.text).length
    for (const span of piece.spans) {
      expect(span.word).toBeLessThan(plan.words.length)
      expect(span.start).toBeLessThanOrEqual(span.end)
      expect(span.end).toBeLessThanOrEqual(length)
    }
  }
}

const TARGETS: PlanOptions[] = [
  { language: 'en', backend: 'espeak' },
  { language: 'en', backend: 'flite' },
  { language: 'de', backend: 'espeak' },
  { language: 'zh', backend: 'espeak' },
  { language: 'ja', backend: 'espeak' },
  { language: 'ru', backend: 'espeak' },
]

describe('planSpeech on random input', () => {
  it('throws nothing but TtsError, and answers each input quickly', async () => {
    // Build the kuromoji tokenizer first, so that the time limit measures planning alone.
    await planSpeech('日本', { language: 'ja', backend: 'espeak' })
    const next = random(20240611)
    let accepted = 0
    for (let i = 0; i < 1500; i++) {
      const transcript = randomTranscript(next)
      const options = TARGETS[i % TARGETS.length]!
      const started = performance.now()
      try {
        checkPlan(transcript, await planSpeech(transcript, options))
        accepted++
      } catch (error) {
        if (!(error instanceof TtsError)) throw new Error(`input ${i} ${JSON.stringify(transcript)} threw ${String(error)}`)
        expect(['INVALID_MARKUP', 'INVALID_PHONEMES'], `${JSON.stringify(transcript)}: ${error.message}`).toContain(error.code)
        expect(error.message).toMatch(/offset \d+/)
      }
      expect(performance.now() - started, JSON.stringify(transcript)).toBeLessThan(250)
    }
    expect(accepted).toBeGreaterThan(100)
  })

  it('stays linear on long hostile input', async () => {
    const hostile = ['<'.repeat(20000), '<a '.repeat(10000), `<phonemes>${'<'.repeat(20000)}`, `${'1'.repeat(5000)}.${'2'.repeat(5000)}`, "<break time='".repeat(3000)]
    for (const transcript of hostile) {
      const started = performance.now()
      await planSpeech(transcript, { language: 'en', backend: 'espeak' }).catch((error: unknown) => expect(error).toBeInstanceOf(TtsError))
      expect(performance.now() - started).toBeLessThan(1000)
    }
  })
})
