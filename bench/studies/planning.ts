/**
 * What planning a text costs the main thread: `planSpeech`'s CPU time for the two-sentence text,
 * the 1000-word paragraph, the SPEC's markup (`<phonemes>`, `<digits>`) and an SSML document, on
 * both backends, over repeated passes. With BENCH_BASELINE_ROOT=<checkout of another commit> (its
 * node_modules present), that checkout's lib/text is timed beside this one's, the two in turns in
 * one process, so both see the same Node and the same sitting. It prints; it writes no section of
 * RESULTS.md (bench/RESULTS.md, "Measurements behind design choices", quotes it).
 *
 *   [BENCH_BASELINE_ROOT=<checkout>] [PASSES=7] node --import tsx bench/studies/planning.ts
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { planSpeech as PlanSpeech } from '../../lib/text/plan.js'
import { median, quantile } from '../harness/stats.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES } from '../harness/texts.js'

const PASSES = Number(process.env.PASSES ?? 7)
/** CPU a pass aims at, so that short texts run enough times for the clock's resolution. */
const PASS_MS = 250

const markup = HARVARD_SENTENCES.map((s, i) => (i % 2 ? s : `${s} <phonemes>həˈloʊ ˈwɝld</phonemes> <digits>12 34</digits>`)).join(' ')
const ssml = `<speak>${HARVARD_SENTENCES.map((s, i) => (i % 2
  ? `<prosody rate="${90 + i}%">${s}</prosody>`
  : `<s>${s} <phoneme alphabet="ipa" ph="həˈloʊ">hello</phoneme> <say-as interpret-as="characters">1234</say-as></s>`)).join(' ')}</speak>`
const TEXTS: [string, string][] = [
  ['two sentences', TWO_SENTENCES],
  ['1000-word paragraph', THOUSAND_WORDS],
  ['20 sentences with <phonemes> and <digits>', markup],
  ['20 sentences of SSML with <prosody>, <phoneme> and <say-as>', ssml],
]
const BACKENDS = ['espeak', 'flite'] as const

async function planner(root: string): Promise<typeof PlanSpeech> {
  return ((await import(pathToFileURL(path.join(root, 'lib/text/plan.ts')).href)) as { planSpeech: typeof PlanSpeech }).planSpeech
}

const subjects: [string, typeof PlanSpeech][] = [['this checkout', await planner(path.resolve(import.meta.dirname, '../..'))]]
const baselineRoot = process.env.BENCH_BASELINE_ROOT
if (baselineRoot) subjects.push([`baseline (${path.basename(path.resolve(baselineRoot))})`, await planner(path.resolve(baselineRoot))])

const cpuUs = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** µs of CPU a plan, over one pass of `times` plans. */
async function pass(plan: typeof PlanSpeech, text: string, backend: (typeof BACKENDS)[number], times: number): Promise<number> {
  const before = cpuUs()
  for (let i = 0; i < times; i++) await plan(text, { language: 'en', backend })
  return (cpuUs() - before) / times
}

// Every subject plans every text first, so that no cell pays for another's compilation.
for (const [, plan] of subjects) for (const backend of BACKENDS) for (const [, text] of TEXTS) await pass(plan, text, backend, text.length > 2000 ? 20 : 200)

console.log(`Node ${process.version}; ${PASSES} passes a cell, each subject in turn; µs of CPU a plan, median (p5-p95 over the passes)`)
for (const backend of BACKENDS) {
  for (const [name, text] of TEXTS) {
    const times = Math.max(1, Math.round((PASS_MS * 1000) / (await pass(subjects[0]![1], text, backend, 20))))
    const runs = subjects.map((): number[] => [])
    for (let p = 0; p < PASSES; p++) {
      const order = p % 2 === 0 ? subjects.keys() : [...subjects.keys()].reverse()
      for (const s of order) runs[s]!.push(await pass(subjects[s]![1], text, backend, times))
    }
    const cells = subjects.map(([label], s) => `${label} ${median(runs[s]!).toFixed(1)} (${quantile(runs[s]!, 0.05).toFixed(1)}-${quantile(runs[s]!, 0.95).toFixed(1)})`)
    console.log(`${backend}, ${name} (${text.length} characters): ${cells.join('; ')}`)
  }
}
