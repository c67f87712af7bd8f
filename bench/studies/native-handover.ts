/**
 * What handing audio over from the native stream costs the event loop: the main thread's CPU for
 * each stretch read from native streams of the two-sentence Harvard text (20 chunks a stream, 4
 * streams at once, so the pool is busy), for flite kal16 and espeak-ng, over repeated passes. It
 * prints; it writes no section of RESULTS.md. To compare two commits, run it in a worktree of
 * each, interleaved (bench/RESULTS.md, "Measurements behind design choices").
 *
 *   node --import tsx bench/studies/native-handover.ts      (PASSES=6 SECONDS=3 by default)
 */
import { bundledEspeakDataPath, loadNative, type NativePlan } from '../../lib/native.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { median } from '../harness/stats.js'

const PASSES = Number(process.env.PASSES ?? 6)
const SECONDS = Number(process.env.SECONDS ?? 3)
const STREAMS = 4
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const chunks = Array.from({ length: 20 }, () => ({ pieces: [{ kind: 'text' as const, text: TEXT }] }))
const PLANS: Record<string, NativePlan> = {
  'flite kal16': { backend: 'flite', voice: 'kal16', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 16000, encoding: 'pcm_s16le', queueCapacity: 2, chunks },
  'espeak-ng': { backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 22050, encoding: 'pcm_s16le', queueCapacity: 2, chunks },
}

const native = loadNative()
await native.init({ espeakDataPath: bundledEspeakDataPath() })

/** Reads one stream to its end; how many stretches it gave. */
async function readStream(plan: NativePlan): Promise<number> {
  const stream = new native.SynthStream(plan)
  let stretches = 0
  while (await stream.next()) stretches++
  return stretches
}

/** µs of main-thread CPU a stretch over `SECONDS` of streams read `STREAMS` at a time. */
async function pass(plan: NativePlan): Promise<number> {
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
for (const plan of Object.values(PLANS)) await readStream(plan)  // warm-up
for (let round = 0; round < PASSES; round++) {
  for (const [name, plan] of Object.entries(PLANS)) figures.set(name, [...(figures.get(name) ?? []), await pass(plan)])
}
for (const [name, values] of figures) {
  console.log(`${name}: main-thread CPU a stretch ${median(values).toFixed(1)} µs (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)} over ${PASSES} passes)`)
}
