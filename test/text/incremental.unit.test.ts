import { describe, expect, it } from 'vitest'
import { planSpeech, SpeechPlanner, type PlanOptions, type SpeechPlan } from '../../lib/text/index.js'
import { parseMarkupPrefix } from '../../lib/text/parser.js'
import { mayEndSentence, splitSentences } from '../../lib/text/sentences.js'
import type { Language } from '../../lib/text/types.js'

const CASES: [string, PlanOptions][] = [
  ["Pay $3.50 to <phonemes>ˈtʃiːz</phonemes> now.<break time='400ms'/> Call <digits>5 5 5</digits>, Dr. Smith. Bye.", { language: 'en', backend: 'espeak' }],
  ['First line here\nSecond line. "Quoted end." (Aside.) 12/05/2023 is a date; 50% of 5km is 2.5km!', { language: 'en', backend: 'flite' }],
  ["Hello. <break time='1s'/> <break time='500ms'/> World. <break time='200ms'/>", { language: 'en', backend: 'espeak' }],
  ['我用iPhone打电话给Tom，花了3.5元。今天天气很好！你呢？', { language: 'zh', backend: 'espeak' }],
  ['Der Preis ist 3,50 €. Das ist z.B. gut. Ende.', { language: 'de', backend: 'espeak' }],
]

/** A deterministic sequence of cut points, so a failure can be replayed. */
function splits(text: string, seed: number): string[] {
  const parts: string[] = []
  let state = seed
  for (let start = 0; start < text.length; ) {
    state = (state * 1103515245 + 12345) % 2 ** 31
    const length = 1 + (state % 7)
    parts.push(text.slice(start, start + length))
    start += length
  }
  return parts
}

async function written(parts: string[], opts: PlanOptions): Promise<SpeechPlan> {
  const planner = new SpeechPlanner(opts)
  const plan: SpeechPlan = { words: [], chunks: [] }
  const add = (part: SpeechPlan) => {
    plan.words.push(...part.words)
    plan.chunks.push(...part.chunks)
  }
  for (const part of parts) {
    planner.write(part)
    add(await planner.take())
  }
  planner.end()
  add(await planner.take())
  return plan
}

describe('SpeechPlanner: text written in pieces', () => {
  for (const [transcript, opts] of CASES) {
    it(`plans ${JSON.stringify(transcript.slice(0, 30))}… the same however it is split`, async () => {
      const whole = await planSpeech(transcript, opts)
      expect(whole.chunks.length).toBeGreaterThan(0)
      for (const seed of [1, 2, 3]) expect(await written(splits(transcript, seed), opts)).toEqual(whole)
      expect(await written(Array.from(transcript), opts)).toEqual(whole)
    })
  }

  it('plans a sentence once the next has begun, and nothing of a tag before it closes', async () => {
    const planner = new SpeechPlanner({ language: 'en', backend: 'espeak' })
    planner.write('One two three.')
    expect((await planner.take()).chunks).toEqual([])
    planner.write(' Four <phon')
    expect((await planner.take()).words.map((word) => word.text)).toEqual(['One', 'two', 'three.'])
    planner.flush()
    expect((await planner.take()).words.map((word) => [word.text, word.start])).toEqual([['Four', 15]])
    planner.write('emes>ˈtʃiːz</phonemes>')
    planner.end()
    expect((await planner.take()).words.map((word) => [word.text, word.start])).toEqual([['ˈtʃiːz', 30]])
  })

  it('parses text being written again only when it holds something that can end a sentence: every character that does', () => {
    // Text without such a character is taken to have no sentence ready; a character that ends one
    // and is missing from mayEndSentence would leave that sentence unplanned until the text ends.
    const ends = (text: string, language: Language) => {
      const { segments, end } = parseMarkupPrefix(text)
      return splitSentences(segments, language, false, end).sentences.length > 0
    }
    const missed: string[] = []
    for (let code = 1; code < 0x10000; code++) {
      if (code >= 0xd800 && code < 0xe000) continue
      const c = String.fromCharCode(code)
      if (c === '<') continue  // a tag: text holding one is always parsed
      const texts: [string, Language][] = [[`one${c} two`, 'en'], [`un${c} deux`, 'fr'], [`你${c}好`, 'zh'], [`你${c} 好`, 'zh'], [`これ${c}あれ`, 'ja']]
      if (texts.some(([text, language]) => ends(text, language)) && !mayEndSentence(c)) missed.push(`U+${code.toString(16).padStart(4, '0')}`)
    }
    expect(missed).toEqual([])
    expect(mayEndSentence('no end here, nor here')).toBe(false)
  })
})
