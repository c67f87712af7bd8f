/** Renders one run's figures as bench/DETAIL.md. */
import { mib, ms, rtf, seconds } from './format.js'
import type { HarnessResults } from './measure-subjects.js'
import type { MachineInfo } from './machine.js'
import { observations } from './observations.js'
import type { SuiteRow } from './micro-benchmarks.js'
import type { Verdict } from './targets.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES, wordCount } from './texts.js'

export interface RunInfo {
  startedAt: Date
  durationSeconds: number
  machine: MachineInfo
  /** 1-minute load average when the run ended. */
  loadAverageAfter: number
}

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n')
}

function machineSection({ machine, startedAt, durationSeconds, loadAverageAfter }: RunInfo, spawnOverheadMs: number): string {
  return [
    '## Machine',
    '',
    `- CPU: ${machine.cpuModel}, ${machine.cores} cores; ${machine.memoryGib.toFixed(1)} GiB memory; ${machine.kernel}`,
    `- Node ${machine.node}; espeak-ng ${machine.espeakNg}; flite ${machine.flite}`,
    `- Run: ${startedAt.toISOString()}, ${durationSeconds.toFixed(0)} s; 1-minute load average ${machine.loadAverage.toFixed(2)} at the start, ${loadAverageAfter.toFixed(2)} at the end (anything else running shows up in every figure)`,
    `- Spawning a do-nothing program (\`true\`) from Node takes ${ms(spawnOverheadMs)} (median): it is inside every CLI figure and none of the engine's.`,
  ].join('\n')
}

function methodSection(): string {
  return [
    '## Method',
    '',
    `- Texts (bench/harness/texts.ts): a two-sentence text ("${TWO_SENTENCES}"), ${HARVARD_SENTENCES.length} Harvard sentences spoken one request (or one process) each and summed, and a ${wordCount(THOUSAND_WORDS)}-word paragraph spoken as one request (or process).`,
    '- In-process: `engine.speak()` with raw 16-bit PCM at the synthesizer\'s own rate (espeak-ng 22.05 kHz, flite 16 kHz, as the CLIs write), plus espeak-ng at 44.1 kHz. First audio is the time from calling `speak()` to its first chunk. Each synthesizer runs in its own child process after 5 warm-up runs; the two-sentence text is spoken 40 times; the RTF figures are the median of 3 repeats.',
    '- CLIs: `espeak-ng -v en-us+f3 -w FILE TEXT`, `flite -voice VOICE -t TEXT -o FILE`, writing to a file as users run them. Its audio is there once the process exits, so a CLI\'s first audio is its whole run; the audio length comes from the WAV\'s byte count. Same warm-up, repeats and texts as in-process.',
    '- RTF = wall time / audio time (lower is faster). Peak RSS: in-process, `process.resourceUsage().maxRSS` of the child at the end (the whole Node process); CLIs, GNU `time -f %M` in separate runs of the two-sentence and 1000-word texts (the larger is shown).',
    '- Concurrency: in a fresh child per synthesizer, 1, 2, 4 and 8 streams of the 1000-word text start at once and are read as fast as they come; throughput is audio seconds delivered per wall second; event-loop lag is how late a 2 ms timer fires meanwhile.',
  ].join('\n')
}

function firstAudioSection(results: HarnessResults): string {
  const rows = results.subjects.map(({ subject, engine, cli }) => [
    subject.label,
    ms(engine.firstAudio.medianMs),
    ms(engine.firstAudio.p95Ms),
    ms(engine.twoSentenceTotalMs),
    cli ? ms(cli.firstAudio.medianMs) : '—',
    cli ? ms(cli.firstAudio.p95Ms) : '—',
    cli ? ms(cli.twoSentenceTotalMs) : '—',
  ])
  return [
    '## Time to first audio, two-sentence text',
    '',
    table(['synthesizer', 'in-process first chunk, median', 'p95', 'in-process whole text', 'CLI first audio (file), median', 'p95', 'CLI whole process'], rows),
  ].join('\n')
}

function realTimeFactorSection(results: HarnessResults): string {
  const rows = results.subjects.map(({ subject, engine, cli }) => [
    subject.label,
    rtf(engine.sentences.rtf),
    cli ? rtf(cli.sentences.rtf) : '—',
    `${rtf(engine.paragraph.rtf)} (${ms(engine.paragraph.wallMs)} for ${seconds(engine.paragraph.audioSeconds)})`,
    cli ? `${rtf(cli.paragraph.rtf)} (${ms(cli.paragraph.wallMs)} for ${seconds(cli.paragraph.audioSeconds)})` : '—',
    ms(engine.paragraph.firstAudioMs),
    cli ? ms(cli.paragraph.firstAudioMs) : '—',
  ])
  return [
    '## Real-time factor',
    '',
    table(
      ['synthesizer', 'in-process, 20 sentences', 'CLI, 20 sentences', 'in-process, 1000 words', 'CLI, 1000 words', 'in-process first chunk, 1000 words', 'CLI first audio (file), 1000 words'],
      rows,
    ),
  ].join('\n')
}

function memorySection(results: HarnessResults): string {
  const rows = results.subjects.map(({ subject, engine, cli }) => [
    subject.label,
    mib(engine.peakRssMib),
    mib(engine.baselineRssMib),
    cli ? mib(cli.peakRssMib) : '—',
  ])
  return [
    '## Peak memory',
    '',
    table(['synthesizer', 'in-process peak RSS (whole Node process)', 'of which before any synthesis', 'CLI peak RSS'], rows),
  ].join('\n')
}

function concurrencySection(results: HarnessResults): string {
  const rows = results.subjects.flatMap(({ subject, concurrency }) =>
    (concurrency?.loads ?? []).map((load) => [
      subject.label,
      String(load.streams),
      load.throughput.toFixed(0),
      ms(load.wallMs),
      ms(load.lag.worstMs),
      ms(load.lag.p99Ms),
    ]),
  )
  return [
    '## Concurrent streams (1000-word text each)',
    '',
    table(['synthesizer', 'streams', 'audio s per wall s', 'wall', 'timer lag, worst', 'timer lag, p99'], rows),
  ].join('\n')
}

function readingSection(verdicts: Verdict[], results: HarnessResults, suite: SuiteRow[]): string {
  const rows = verdicts.map((v) => [v.target, v.measured, v.met ? '**met**' : '**missed**', v.reading])
  return ['## Reading the results', table(['target', 'measured', 'verdict', 'why'], rows), ...observations(results, suite)].join('\n\n')
}

function suiteSection(rows: SuiteRow[]): string {
  return [
    '## Micro-benchmarks (tinybench, bench/harness/micro-benchmarks.ts)',
    '',
    table(
      ['task', 'median', 'p99', 'ops/s', 'samples'],
      rows.map((row) => [row.task, ms(row.medianMs), ms(row.p99Ms), row.opsPerSecond.toFixed(0), String(row.samples)]),
    ),
  ].join('\n')
}

export function renderReport(run: RunInfo, results: HarnessResults, verdicts: Verdict[], suite: SuiteRow[]): string {
  return [
    '# svc-tts speed',
    'Generated by `npm run bench:detail` (`node --import tsx bench/synthesizers.ts`); rerun that command to reproduce. Every figure below comes from that one run.',
    machineSection(run, results.spawnOverheadMs),
    methodSection(),
    firstAudioSection(results),
    realTimeFactorSection(results),
    memorySection(results),
    concurrencySection(results),
    readingSection(verdicts, results, suite),
    suiteSection(suite),
  ].join('\n\n') + '\n'
}
