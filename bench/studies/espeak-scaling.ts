/**
 * How espeak-ng's throughput grows with cores, in-process and as the espeak-ng program: for N = 1,
 * 2, 4, 8, ... up to the CPUs this process may run on, N `espeak-ng -w` processes at once, each
 * speaking the 20 Harvard sentences ten times over as one text (the raw limit of N cores), against
 * an engine process pinned to the same N CPUs (`taskset`; its default threads follow its
 * affinity, so N pool threads and N espeak-ng copies) served by 4N closed-loop clients, each
 * request the 20 sentences as one text, or one sentence. Passes of every subject take turns.
 * Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/espeak-scaling.ts      (PASSES=5 by default)
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'
import { wavDurationSeconds } from '../harness/wav-duration.js'

const PASSES = Number(process.env.PASSES ?? 5)
const CLI_TEXT = Array.from({ length: 10 }, () => HARVARD_SENTENCES.join(' ')).join(' ')
const CPUS = availableParallelism()
const CORE_COUNTS = [1, 2, 4, 8, 16, 32, 64].filter((n) => n <= CPUS)
// The host beside this file, in whatever form this file runs (TypeScript under tsx, or bundled).
const HOST = fileURLToPath(new URL(`../workers/espeak-host${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url))
const ESPEAK_ARGS = process.env.ESPEAK_NG_PATH ? [`--path=${process.env.ESPEAK_NG_PATH}`] : []

type Pass = { audioPerSecond: number; poolThreads?: number; busyPeak?: number }
type Host = { pass(clients: number, whole: boolean, requests: number): Promise<Pass>; stop(): void }

const cpuList = (n: number) => `0-${n - 1}`

/** An engine process (bench/workers/espeak-host) pinned to the first `n` CPUs. */
async function startHost(n: number): Promise<Host> {
  // Pinned from its start (taskset runs Node in its place, the IPC channel inherited), so its engine sees N CPUs.
  const child = spawn('taskset', ['-c', cpuList(n), process.execPath, ...process.execArgv, HOST], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`the host exited with ${code}`))))
  return {
    pass: (clients, whole, requests) => new Promise<Pass>((resolve) => {
      child.once('message', (m) => {
        const { audioPerSecond, counters } = m as { audioPerSecond: number; counters: { poolThreads: number; espeakBusyPeak: number } }
        resolve({ audioPerSecond, poolThreads: counters.poolThreads, busyPeak: counters.espeakBusyPeak })
      })
      child.send({ clients, whole, requests })
    }),
    stop: () => child.send('stop'),
  }
}

/** `n` espeak-ng processes at once on the first `n` CPUs, each writing CLI_TEXT to a file: their audio over the wall time of all. */
function rawLimit(dir: string, n: number): Promise<Pass> {
  const started = performance.now()
  return Promise.all(Array.from({ length: n }, (_, i) => new Promise<number>((resolve, reject) => {
    const file = path.join(dir, `${i}.wav`)
    spawn('taskset', ['-c', cpuList(n), 'espeak-ng', ...ESPEAK_ARGS, '-v', 'en-us+f3', '-w', file, CLI_TEXT], { stdio: 'ignore' })
      .on('error', reject)
      .on('exit', (code) => (code === 0 ? resolve(wavDurationSeconds(readFileSync(file))) : reject(new Error(`espeak-ng exited with ${code}`))))
  }))).then((audio) => ({ audioPerSecond: audio.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000) }))
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-scaling-'))
  const hosts = new Map<number, Host>()
  for (const n of CORE_COUNTS) hosts.set(n, await startHost(n))
  // About 470 s of audio per core a pass, from each subject.
  const subjects = CORE_COUNTS.flatMap((n) => [
    { n, what: 'raw limit', run: () => rawLimit(dir, n) },
    { n, what: 'engine, the 20 as one text', run: () => hosts.get(n)!.pass(4 * n, true, 10 * n) },
    { n, what: 'engine, one sentence', run: () => hosts.get(n)!.pass(4 * n, false, 200 * n) },
  ])
  try {
    for (const subject of subjects) await subject.run()  // warm-up: the copies started, voices loaded
    const passes = subjects.map(() => [] as Pass[])
    for (let p = 0; p < PASSES; p++) {
      const order = subjects.map((_, i) => (i + p) % subjects.length)
      for (const i of order) passes[i]!.push(await subjects[i]!.run())
      process.stderr.write(`[espeak-scaling] pass ${p + 1}/${PASSES}\n`)
    }
    const rate = (i: number) => median(passes[i]!.map((pass) => pass.audioPerSecond))
    const spread = (i: number) => {
      const rates = passes[i]!.map((pass) => pass.audioPerSecond)
      return `${rate(i).toFixed(0)} (${quantile(rates, 0.05).toFixed(0)}-${quantile(rates, 0.95).toFixed(0)})`
    }
    const one = (what: string) => rate(subjects.findIndex((s) => s.n === 1 && s.what === what))
    const rows = CORE_COUNTS.map((n) => {
      const [raw, whole, sentence] = ['raw limit', 'engine, the 20 as one text', 'engine, one sentence'].map((what) => subjects.findIndex((s) => s.n === n && s.what === what)) as [number, number, number]
      const last = passes[whole]!.at(-1)!
      return `| ${n} | ${spread(raw)} | ${(rate(raw) / one('raw limit')).toFixed(2)} | ${spread(whole)} | ${(rate(whole) / rate(raw)).toFixed(2)} | ${(rate(whole) / one('engine, the 20 as one text')).toFixed(2)} | ${spread(sentence)} | ${(rate(sentence) / rate(raw)).toFixed(2)} | ${last.poolThreads} / ${last.busyPeak} |`
    })
    const seconds = Math.round((Date.now() - started) / 1000)
    const section = writeSection('espeak-scaling', `
## espeak-ng over N cores

Generated by \`node --import tsx bench/studies/espeak-scaling.ts\` (PASSES=${PASSES}); ${new Date(started).toISOString()}, ${seconds} s, ${CPUS} CPUs (${cpus()[0]?.model ?? 'cpu'}), 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end.

Method: seconds of espeak-ng audio (en-us+f3, Sarah) made per second of wall time on the first N CPUs (\`taskset\`), ${PASSES} passes of every subject taken in turns, median (p5-p95). Raw limit: N \`espeak-ng -w FILE TEXT\` processes at once, each the 20 Harvard sentences ten times over (about 470 s of audio). Engine: one process pinned to the same N CPUs, whose default threads follow its affinity (N pool threads, so N espeak-ng copies), synthesis threads at the process's priority (\`threadNice: 0\`), 4N closed-loop clients each sending \`engine.synthesize()\` (raw PCM, 22.05 kHz) one request after another: the 20 sentences as one text, or one sentence a request; about 470 s of audio per core a pass. "Scaling" is the rate over the same subject's rate on 1 CPU.

| N | raw limit, audio s/s | scaling | engine, whole texts | of the raw limit | scaling | engine, one sentence a request | of the raw limit | pool threads / copies busy at once |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`)
    process.stdout.write(section)
  } finally {
    for (const host of hosts.values()) host.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
