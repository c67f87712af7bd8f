/**
 * Child process: for one subject (argv[2]), runs 1, 2, 4 and 8 streams of the 1000-word text at
 * once, each read as fast as it comes, and records throughput and the event-loop timer lag.
 */
import { createEngine } from '../../lib/engine/create.js'
import { TWO_SENTENCES, THOUSAND_WORDS } from '../harness/texts.js'
import { subjectById } from '../harness/subjects.js'
import { timeSpeech } from '../harness/timed-speech.js'
import { TimerLagMonitor, type LagSummary } from '../harness/timer-lag.js'

const STREAM_COUNTS = [1, 2, 4, 8] as const

export interface StreamLoad {
  streams: number
  wallMs: number
  audioSeconds: number
  /** Audio seconds delivered per wall-clock second, all streams together. */
  throughput: number
  lag: LagSummary
}

export interface ConcurrencyMeasurements {
  /** The same timer on an idle loop: the floor that timer granularity alone gives. */
  idleLag: LagSummary
  loads: StreamLoad[]
  poolThreads: number
}

const IDLE_SAMPLE_MS = 300

const subject = subjectById(process.argv[2] ?? '')
const engine = await createEngine()
for (let i = 0; i < 3; i++) await timeSpeech(engine, subject, TWO_SENTENCES)

const monitor = new TimerLagMonitor()
monitor.start()
await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS))
const idleLag = monitor.stop()

const loads: StreamLoad[] = []
for (const streams of STREAM_COUNTS) {
  monitor.start()
  const started = performance.now()
  const timings = await Promise.all(Array.from({ length: streams }, () => timeSpeech(engine, subject, THOUSAND_WORDS)))
  const wallMs = performance.now() - started
  const lag = monitor.stop()
  const audioSeconds = timings.reduce((sum, t) => sum + t.audioSeconds, 0)
  loads.push({ streams, wallMs, audioSeconds, throughput: audioSeconds / (wallMs / 1000), lag })
}
const poolThreads = engine.counters().poolThreads
await engine.close()
const result: ConcurrencyMeasurements = { idleLag, loads, poolThreads }
process.stdout.write(JSON.stringify(result) + '\n')
