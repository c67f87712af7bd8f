/**
 * Runs every measurement: the in-process engine (each subject in its own child process, so peak
 * RSS and warm-up are its own), the matching command-line program on the same texts, and the
 * concurrent-stream load test. Progress goes to stderr; the results come back as one object.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { cliPeakRssMib, spawnOverheadMs, timeCli } from './cli-baselines.js'
import type { ConcurrencyMeasurements } from '../workers/concurrency-workload.js'
import type { EngineMeasurements } from '../workers/engine-workload.js'
import { measureSpeaker, type SpeakerMeasurements } from './protocol.js'
import { SUBJECTS, type Subject } from './subjects.js'
import { THOUSAND_WORDS, TWO_SENTENCES } from './texts.js'

export interface CliMeasurements extends SpeakerMeasurements {
  /** The larger of the two-sentence and 1000-word runs; undefined without GNU time. */
  peakRssMib: number | undefined
}

export interface SubjectResults {
  subject: Subject
  engine: EngineMeasurements
  cli?: CliMeasurements
  concurrency?: ConcurrencyMeasurements
}

export interface HarnessResults {
  subjects: SubjectResults[]
  /** Median cost of spawning `true` from Node, included in every CLI figure. */
  spawnOverheadMs: number
}

/** The subjects whose streams are load-tested: one per synthesizer (the 44.1 kHz variant would repeat espeak-ng). */
const LOAD_TESTED = new Set(['espeak', 'slt', 'kal16'])

function runWorkload<T>(script: string, subjectId: string): Promise<T> {
  const scriptPath = fileURLToPath(new URL(script, import.meta.url))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', scriptPath, subjectId], { stdio: ['ignore', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (part: string) => (stdout += part))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${script} ${subjectId} exited with ${code}`))
      const lastLine = stdout.trim().split('\n').pop() ?? ''
      resolve(JSON.parse(lastLine) as T)
    })
  })
}

async function measureCli(subject: Subject): Promise<CliMeasurements | undefined> {
  const cli = subject.cli
  if (!cli) return undefined
  const measured = await measureSpeaker((text) => timeCli(cli, text))
  const peaks = [await cliPeakRssMib(cli, TWO_SENTENCES), await cliPeakRssMib(cli, THOUSAND_WORDS)].filter((p) => p !== undefined)
  return { ...measured, peakRssMib: peaks.length > 0 ? Math.max(...peaks) : undefined }
}

function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`)
}

export async function measureSubjects(): Promise<HarnessResults> {
  const subjects: SubjectResults[] = []
  for (const subject of SUBJECTS) {
    progress(`${subject.label}: in-process engine`)
    const engine = await runWorkload<EngineMeasurements>('../workers/engine-workload.ts', subject.id)
    if (subject.cli) progress(`${subject.label}: ${subject.cli.command} command line`)
    const cli = await measureCli(subject)
    if (LOAD_TESTED.has(subject.id)) progress(`${subject.label}: 1, 2, 4, 8 concurrent streams`)
    const concurrency = LOAD_TESTED.has(subject.id)
      ? await runWorkload<ConcurrencyMeasurements>('../workers/concurrency-workload.ts', subject.id)
      : undefined
    subjects.push({ subject, engine, ...(cli && { cli }), ...(concurrency && { concurrency }) })
  }
  return { subjects, spawnOverheadMs: await spawnOverheadMs() }
}
