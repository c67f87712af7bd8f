/**
 * What a pronunciation dictionary of 10 000 rules costs a sentence: planning the 20 Harvard-style
 * sentences below with and without it (the rules' lookups and the phrases they replace), and its
 * compilation, which a request pays once per dictionary version. Run:
 * node --import tsx bench/dictionaries.ts
 */
import { Bench } from 'tinybench'
import { Lexicon, planSpeech, type LexiconRule } from '../lib/text/index.js'
import { dictionaryRules, SENTENCES } from './harness/dictionary-rules.js'

const rules: LexiconRule[] = dictionaryRules(10_000)
const lexicon = new Lexicon(rules)
const bench = new Bench({ time: 2000 })
let sentence = 0
bench
  .add('plan a sentence', async () => {
    await planSpeech(SENTENCES[sentence++ % SENTENCES.length]!, { language: 'en', backend: 'espeak' })
  })
  .add('plan a sentence with 10 000 rules', async () => {
    await planSpeech(SENTENCES[sentence++ % SENTENCES.length]!, { language: 'en', backend: 'espeak', lexicon })
  })
  .add('compile 10 000 rules', () => {
    void new Lexicon(rules)
  })
await bench.run()
console.table(bench.table())
const [plain, withRules] = bench.tasks.map((task) => (task.result as { latency?: { mean: number } }).latency?.mean ?? NaN)
console.log(`10 000 rules cost ${(withRules! - plain!).toFixed(3)} ms a sentence`)
