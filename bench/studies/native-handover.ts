/**
 * What handing audio over from the native stream costs the event loop: the main thread's CPU for
 * each stretch read from native streams of the two-sentence Harvard text (20 chunks a stream, 4
 * streams at once, so the pool is busy), for flite kal16 and espeak-ng, over repeated passes; and
 * how long starting a stream (`new SynthStream(plan)`) holds the main thread, which waits there for
 * any lock a pool thread holds. It prints; it writes no section of RESULTS.md. To compare two
 * commits, run it in a worktree of each, or with SVC_TTS_NATIVE_BINDING naming each build's addon,
 * interleaved (bench/RESULTS.md, "Measurements behind design choices").
 *
 *   node --import tsx bench/studies/native-handover.ts      (PASSES=6 SECONDS=3 STREAMS=4 CHUNKS=20 by default)
 */
import { bundledEspeakDataPath, loadNative, type NativePlan } from '../../lib/native.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { median, quantile } from '../harness/stats.js'

const PASSES = Number(process.env.PASSES ?? 6)
const SECONDS = Number(process.env.SECONDS ?? 3)
const STREAMS = Number(process.env.STREAMS ?? 4)
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const chunks = Array.from({ length: Number(process.env.CHUNKS ?? 20) }, () => ({ pieces: [{ kind: 'text' as const, text: TEXT }] }))
const PLANS: Record<string, NativePlan> = {
  'flite kal16': { backend: 'flite', voice: 'kal16', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 16000, encoding: 'pcm_s16le', queueCapacity: 2, chunks },
  'espeak-ng': { backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 22050, encoding: 'pcm_s16le', queueCapacity: 2, chunks },
}

const native = loadNative()
await native.init({ espeakDataPath: bundledEspeakDataPath() })

/** µs each stream's start held the main thread, this pass. */
let starts: number[] = []

/** Reads one stream to its end; how many stretches it gave. */
async function readStream(plan: NativePlan): Promise<number> {
  const before = performance.now()
  const stream = new native.SynthStream(plan)
  starts.push((performance.now() - before) * 1000)
  let stretches = 0
  while (await stream.next()) stretches++
  return stretches
}

/** µs of main-thread CPU a stretch over `SECONDS` of streams read `STREAMS` at a time. */
async function pass(plan: NativePlan): Promise<number> {
  starts = []
  let stretches = 0
  const cpuBefore = mainThreadCpuMs(process.pid)
  const started = performance.now()
  while (performance.now() - started < SECONDS * 1000) {
    const counts = await Promise.all(Array.from({ length: STREAMS }, () => readStream(plan)))
    stretches += counts.reduce((sum, count) => sum + count, 0)
  }
  return ((mainThreadCpuMs(process.pid) - cpuBefore) * 1000) / stretches
}

const figures = new Map<string, number[]>()
const startTimes = new Map<string, number[]>()
for (const plan of Object.values(PLANS)) await readStream(plan)  // warm-up
for (let round = 0; round < PASSES; round++) {
  for (const [name, plan] of Object.entries(PLANS)) {
    figures.set(name, [...(figures.get(name) ?? []), await pass(plan)])
    startTimes.set(name, [...(startTimes.get(name) ?? []), ...starts])
  }
}
for (const [name, values] of figures) {
  const held = startTimes.get(name)!
  const mean = held.reduce((sum, us) => sum + us, 0) / held.length
  console.log(`${name}: main-thread CPU a stretch ${median(values).toFixed(1)} µs (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)} over ${PASSES} passes); ` +
    `starting a stream held the main thread ${mean.toFixed(0)} µs on average, p50 ${quantile(held, 0.5).toFixed(0)}, p90 ${quantile(held, 0.9).toFixed(0)}, p99 ${quantile(held, 0.99).toFixed(0)} (${held.length} streams)`)
}
