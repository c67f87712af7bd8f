/**
 * Dictionary rules in planning: whole words, any case unless a rule says, the longest phrase
 * first, punctuation kept as text; and the cost of 10 000 rules a sentence (the bound: 1 ms).
 */
import { describe, expect, it } from 'vitest'
import { Lexicon, planSpeech, type PlanOptions, type SpeechPlan } from '../../lib/text/index.js'
import { dictionaryRules, SENTENCES } from '../../bench/harness/dictionary-rules.js'

const EN: PlanOptions = { language: 'en', backend: 'espeak' }
const pieces = (plan: SpeechPlan) => plan.chunks.flatMap((chunk) => chunk.pieces.map((p) => (p.kind === 'text' ? p.text : p.kind === 'phonemes' ? `[${p.phonemes}]` : `<${p.ms}>`)))

describe('a lexicon', () => {
  const lexicon = new Lexicon([
    { text: 'Nguyen', phonemes: 'wɪn' },
    { text: 'New', alias: 'Old' },
    { text: 'New York City', alias: 'the City' },
    { text: 'new york', alias: 'the Apple' },
    { text: 'IT', alias: 'information technology', caseSensitive: true },
  ])

  it('matches whole words in any case, the longest phrase first, punctuation left as text', async () => {
    const plan = await planSpeech('Nguyen, from New York City, likes new york and NEW Yorkers; it is IT.', { ...EN, lexicon })
    expect(pieces(plan)).toEqual(['[w|I|n]', ',', 'from the City ,', 'likes the Apple and Old Yorkers;', 'it is information technology .'])
    expect(plan.words.map((w) => w.text)).toEqual(['Nguyen', 'from', 'New York City', 'likes', 'new york', 'and', 'NEW', 'Yorkers;', 'it', 'is', 'IT'])
  })

  it('does not match inside a word or across punctuation', async () => {
    const plan = await planSpeech('Newer Nguyens. New. York', { ...EN, lexicon })
    expect(pieces(plan)).toEqual(['Newer Nguyens.', 'Old .', 'York'])
  })

  it('of 10 000 rules costs under 1 ms a sentence', async () => {
    const big = new Lexicon(dictionaryRules(10_000))
    const time = async (options: typeof EN & { lexicon?: Lexicon }) => {
      const started = performance.now()
      for (let i = 0; i < 500; i++) await planSpeech(SENTENCES[i % SENTENCES.length]!, options)
      return (performance.now() - started) / 500
    }
    await time(EN)  // warm up
    const cost = (await time({ ...EN, lexicon: big })) - (await time(EN))
    expect(cost).toBeLessThan(1)
    const plan = await planSpeech(SENTENCES[0]!, { ...EN, lexicon: big })
    expect(plan.words.map((w) => w.text)).toContain('Name10 Street')
  })
})
