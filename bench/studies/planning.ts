/**
 * What planning a text costs the main thread: `planSpeech`'s CPU time for the two-sentence text,
 * the 1000-word paragraph, the SPEC's markup (`<phonemes>`, `<digits>`) and an SSML document, and
 * a `SpeechPlanner`'s for the paragraph written 4 characters at a time (as a WebSocket context gets
 * a language model's text), on both backends, over repeated passes. With
 * BENCH_BASELINE_ROOT=<checkout of another commit> (its node_modules present), that checkout's
 * lib/text is timed beside this one's, the two in turns in one process, so both see the same Node
 * and the same sitting. It prints; it writes no section of
 * RESULTS.md (bench/RESULTS.md, "Measurements behind design choices", quotes it).
 *
 *   [BENCH_BASELINE_ROOT=<checkout>] [PASSES=7] node --import tsx bench/studies/planning.ts
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { PlannerOptions, SpeechPlanner as Planner, planSpeech as PlanSpeech } from '../../lib/text/plan.js'
import { spread } from '../harness/stats.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES } from '../harness/texts.js'

const PASSES = Number(process.env.PASSES ?? 7)
/** CPU a pass aims at, so that short texts run enough times for the clock's resolution. */
const PASS_MS = 250

const markup = HARVARD_SENTENCES.map((s, i) => (i % 2 ? s : `${s} <phonemes>həˈloʊ ˈwɝld</phonemes> <digits>12 34</digits>`)).join(' ')
const ssml = `<speak>${HARVARD_SENTENCES.map((s, i) => (i % 2
  ? `<prosody rate="${90 + i}%">${s}</prosody>`
  : `<s>${s} <phoneme alphabet="ipa" ph="həˈloʊ">hello</phoneme> <say-as interpret-as="characters">1234</say-as></s>`)).join(' ')}</speak>`
const BACKENDS = ['espeak', 'flite'] as const
type Backend = (typeof BACKENDS)[number]

interface PlanModule {
  planSpeech: typeof PlanSpeech
  SpeechPlanner: new (opts: PlannerOptions) => Planner
}
/** Plans one text on one backend with a checkout's lib/text. */
type Plan = (text: string, backend: Backend) => Promise<unknown>

const whole = (module: PlanModule): Plan => (text, backend) => module.planSpeech(text, { language: 'en', backend })
const inPieces = (module: PlanModule): Plan => async (text, backend) => {
  const planner = new module.SpeechPlanner({ language: 'en', backend })
  for (let at = 0; at < text.length; at += 4) {
    planner.write(text.slice(at, at + 4))
    await planner.take()
  }
  planner.end()
  await planner.take()
}
const TEXTS: [string, string, (module: PlanModule) => Plan][] = [
  ['two sentences', TWO_SENTENCES, whole],
  ['1000-word paragraph', THOUSAND_WORDS, whole],
  ['1000-word paragraph written 4 characters at a time, a take after each', THOUSAND_WORDS, inPieces],
  ['20 sentences with <phonemes> and <digits>', markup, whole],
  ['20 sentences of SSML with <prosody>, <phoneme> and <say-as>', ssml, whole],
]

const planModule = async (root: string) => (await import(pathToFileURL(path.join(root, 'lib/text/plan.ts')).href)) as PlanModule
const subjects: [string, PlanModule][] = [['this checkout', await planModule(path.resolve(import.meta.dirname, '../..'))]]
const baselineRoot = process.env.BENCH_BASELINE_ROOT
if (baselineRoot) subjects.push([`baseline (${path.basename(path.resolve(baselineRoot))})`, await planModule(path.resolve(baselineRoot))])

const cpuUs = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** µs of CPU a plan, over one pass of `times` plans. */
async function pass(plan: Plan, text: string, backend: Backend, times: number): Promise<number> {
  const before = cpuUs()
  for (let i = 0; i < times; i++) await plan(text, backend)
  return (cpuUs() - before) / times
}

// Every subject plans every text first, so that no cell pays for another's compilation.
for (const [, module] of subjects) for (const backend of BACKENDS) for (const [, text, how] of TEXTS) await pass(how(module), text, backend, text.length > 2000 ? 20 : 200)

console.log(`Node ${process.version}; ${PASSES} passes a cell, each subject in turn; µs of CPU a plan, median (p5-p95 over the passes)`)
for (const backend of BACKENDS) {
  for (const [name, text, how] of TEXTS) {
    const plans = subjects.map(([, module]) => how(module))
    const times = Math.max(1, Math.round((PASS_MS * 1000) / (await pass(plans[0]!, text, backend, 5))))
    const runs = subjects.map((): number[] => [])
    for (let p = 0; p < PASSES; p++) {
      const order = p % 2 === 0 ? subjects.keys() : [...subjects.keys()].reverse()
      for (const s of order) runs[s]!.push(await pass(plans[s]!, text, backend, times))
    }
    const cells = subjects.map(([label], s) => `${label} ${spread(runs[s]!, 1)}`)
    console.log(`${backend}, ${name} (${text.length} characters): ${cells.join('; ')}`)
  }
}
