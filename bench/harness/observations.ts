/**
 * What the run shows beyond the targets (targets.ts): event-loop lag and throughput under
 * concurrent streams, memory, and the audio the chunking adds on flite. Each note carries its
 * figures from the run and the part of the engine responsible.
 */
import { mib, ms, seconds, times } from './format.js'
import type { HarnessResults } from './measure-subjects.js'
import { PARAGRAPH_PLAN_TASK, type SuiteRow } from './micro-benchmarks.js'
import { resultsFor } from './targets.js'

function eventLoopLag(results: HarnessResults): string {
  const lines = ['espeak', 'slt', 'kal16'].map((id) => {
    const { subject, concurrency } = resultsFor(results, id)
    const eight = concurrency?.loads.find((load) => load.streams === 8)
    if (!concurrency || !eight) return `${subject.label}: not measured`
    return `${subject.label}: worst ${ms(eight.lag.worstMs)}, p99 ${ms(eight.lag.p99Ms)} (idle loop: worst ${ms(concurrency.idleLag.worstMs)}, p99 ${ms(concurrency.idleLag.p99Ms)})`
  })
  return [
    '**Event-loop lag with 8 long streams** (a 2 ms timer\'s lateness while 8 streams of the 1000-word text are read):',
    ...lines.map((line) => `- ${line}`),
    '',
    'The p99 stays within a few milliseconds: synthesis runs on native threads and each chunk costs the loop one Buffer copy and its word alignment. ' +
      'The worst case comes from two places. At the start, all eight `speak()` calls run `planSpeech` of the whole 1000-word text on the main thread, one after another, before their first chunk. ' +
      'Later spikes come from the machine: the native pool has one thread per core (2 here), so two busy synthesis threads and the event loop share two cores, and the OS sometimes preempts the loop.',
  ].join('\n')
}

function throughputScaling(results: HarnessResults): string {
  const scaling = (id: string) => {
    const loads = resultsFor(results, id).concurrency?.loads
    const at = (streams: number) => loads?.find((load) => load.streams === streams)?.throughput ?? Number.NaN
    return `${id}: ${at(1).toFixed(0)} → ${at(2).toFixed(0)} → ${at(8).toFixed(0)} audio s/s with 1 → 2 → 8 streams`
  }
  const poolThreads = resultsFor(results, 'slt').concurrency?.poolThreads ?? Number.NaN
  return (
    `**Throughput.** espeak-ng does not scale with streams (${scaling('espeak')}): ` +
    'espeak-ng\'s C API is one global instance, so native/backends/espeak/backend.cc holds a process-wide mutex around every `espeak_Synth` and streams take turns on one core. ' +
    `flite has no lock of its own and can use all ${poolThreads} pool threads (${scaling('kal16')}; ${scaling('slt')}). ` +
    'The clustergen voices (slt, rms, awb) scale less well: their vocoder calls libc `rand()`, whose internal lock the threads share (NATIVE.md Part C §5 measured about 30% lost on 2 threads). ' +
    'More streams than pool threads only queue.'
  )
}

function memory(results: HarnessResults): string {
  const espeak = resultsFor(results, 'espeak')
  const slt = resultsFor(results, 'slt')
  return (
    `**Memory.** The in-process figures are the whole Node process (Node, tsx, the addon and the engine: ${mib(espeak.engine.baselineRssMib)} before any synthesis for espeak-ng); ` +
    `synthesis adds ${mib(espeak.engine.peakRssMib - espeak.engine.baselineRssMib)} (espeak-ng) and ${mib(slt.engine.peakRssMib - slt.engine.baselineRssMib)} (slt). ` +
    `The flite CLI with \`-t\` makes the 1000-word text one utterance and peaks at ${mib(slt.cli?.peakRssMib)}; the engine's chunks keep flite's utterances small.`
  )
}

function fliteChunkSilence(results: HarnessResults): string {
  const slt = resultsFor(results, 'slt')
  const parts = ['slt', 'kal16'].map((id) => {
    const { engine, cli } = resultsFor(results, id)
    const extra = engine.sentences.audioSeconds / (cli?.sentences.audioSeconds ?? Number.NaN)
    return `${id}: ${seconds(engine.sentences.audioSeconds)} in-process vs ${seconds(cli?.sentences.audioSeconds ?? Number.NaN)} from the CLI (${times(extra)})`
  })
  return (
    `**flite speaks the 20 sentences longer in-process** (${parts.join('; ')}). ` +
    'A Harvard sentence is seven or eight words, so the chunker cuts it after its first five words to start audio early, and each chunk is a separate flite utterance. ' +
    'The silence flite pads each utterance with is trimmed to 15 ms at such a cut (chunks marked `continues`), so no pause is heard there; ' +
    'what remains is prosody: the five-word utterance ends with phrase-final lengthening and the next starts a fresh intonation contour. ' +
    'Synthesising two utterances instead of one also costs time: ' +
    `the 20 slt sentences take ${ms(slt.engine.sentences.wallMs)} in-process against ${ms(slt.cli?.sentences.wallMs ?? Number.NaN)} for 20 CLI processes, start-up included.`
  )
}

function firstAudioGrowsWithText(results: HarnessResults, suite: SuiteRow[]): string {
  const { engine } = resultsFor(results, 'espeak')
  const planning = suite.find((row) => row.task === PARAGRAPH_PLAN_TASK)
  return (
    `**First audio grows with the text.** espeak-ng's first chunk takes ${ms(engine.firstAudio.medianMs)} (median) for two sentences but ${ms(engine.paragraph.firstAudioMs)} for the 1000-word text, ` +
    'although chunk 0 is the same five words long: `speak()` plans the whole transcript (normalisation, tokens, every chunk) on the main thread, and the native stream copies the whole plan, before chunk 0 is synthesised. ' +
    `Planning this paragraph alone takes ${ms(planning?.medianMs ?? Number.NaN)} median and ${ms(planning?.p99Ms ?? Number.NaN)} p99 in the suite below. ` +
    'The rest varies from run to run on a 2-core machine: the collector cleaning up after planning, and the synthesis thread waiting for a core.'
  )
}

export function observations(results: HarnessResults, suite: SuiteRow[]): string[] {
  return [firstAudioGrowsWithText(results, suite), eventLoopLag(results), throughputScaling(results), memory(results), fliteChunkSilence(results)]
}
