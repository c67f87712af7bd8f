/**
 * Micro-benchmarks of the hot primitives, with tinybench: text planning, one-shot synthesis on
 * each synthesizer, and the WAV header. These isolate the costs that the harness sees combined.
 */
import { Bench } from 'tinybench'
import { wavHeader } from '../../lib/audio/format.js'
import { createEngine } from '../../lib/engine/create.js'
import { planSpeech, SpeechPlanner } from '../../lib/text/index.js'
import { requestFor, subjectById } from './subjects.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES } from './texts.js'

export interface SuiteRow {
  task: string
  medianMs: number
  p99Ms: number
  opsPerSecond: number
  samples: number
}

const SENTENCE = HARVARD_SENTENCES[0]!

/** The task whose figure the report quotes when it explains first audio on long texts. */
export const PARAGRAPH_PLAN_TASK = 'planSpeech, 1000-word paragraph (espeak)'

/** A paragraph as a language model streams it: pieces of four characters, each planned as it comes. */
async function planWrittenInPieces(text: string): Promise<void> {
  const planner = new SpeechPlanner({ language: 'en', backend: 'espeak' })
  for (let at = 0; at < text.length; at += 4) {
    planner.write(text.slice(at, at + 4))
    await planner.take()
  }
  planner.end()
  await planner.take()
}

export async function runSuite(): Promise<SuiteRow[]> {
  const engine = await createEngine()
  const bench = new Bench({ time: 400, warmupTime: 100, iterations: 20 })
  const oneShot = (subjectId: string) => {
    const request = requestFor(subjectById(subjectId), SENTENCE)
    return () => engine.synthesize(request)
  }
  bench
    .add('planSpeech, two sentences (espeak)', () => planSpeech(TWO_SENTENCES, { language: 'en', backend: 'espeak' }))
    .add(PARAGRAPH_PLAN_TASK, () => planSpeech(THOUSAND_WORDS, { language: 'en', backend: 'espeak' }))
    .add('planSpeech, 1000-word paragraph (flite)', () => planSpeech(THOUSAND_WORDS, { language: 'en', backend: 'flite' }))
    .add('SpeechPlanner, 1000-word paragraph written 4 characters at a time (espeak)', () => planWrittenInPieces(THOUSAND_WORDS))
    .add('synthesize one sentence, espeak-ng 22.05 kHz', oneShot('espeak'))
    .add('synthesize one sentence, espeak-ng 44.1 kHz', oneShot('espeak-44k'))
    .add('synthesize one sentence, flite kal16 16 kHz', oneShot('kal16'))
    .add('synthesize one sentence, flite slt 16 kHz', oneShot('slt'))
    .add('wavHeader, pcm_s16le 44.1 kHz', () => wavHeader({ encoding: 'pcm_s16le', sample_rate: 44100 }, 88200))
  await bench.run()
  await engine.close()
  return bench.tasks.map((task) => {
    const result = task.result
    if (result.state !== 'completed') throw new Error(`suite task '${task.name}' ended ${result.state}`)
    return {
      task: task.name,
      medianMs: result.latency.p50,
      p99Ms: result.latency.p99,
      opsPerSecond: result.throughput.mean,
      samples: task.runs,
    }
  })
}
