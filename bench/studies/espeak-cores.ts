/**
 * In-process espeak-ng throughput (seconds of audio made per second) against the machine's raw
 * limit: one `espeak-ng -w` process per core, all at once, each speaking the 20 Harvard sentences
 * (ten times over, as one text, so that process start-up weighs little). In-process, C closed-loop
 * clients send engine.synthesize() one sentence after another, or the 20 sentences as one text
 * (raw PCM at espeak-ng's own 22.05 kHz), at C = 2, 4, 16 and 64, in an engine process of its own
 * (bench/workers/espeak-host.ts); with BENCH_BASELINE_ADDON (an addon built before espeak-ng had
 * copies), the same again on that addon. The subjects take turns in short passes, so that load
 * from elsewhere on a shared machine falls on all of them alike. Writes its section of
 * bench/RESULTS.md.
 *
 *   BENCH_BASELINE_ADDON=<old build>/svc_tts.node node --import tsx bench/studies/espeak-cores.ts
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { espeakPrograms, startEspeakHost, type Pass } from '../harness/espeak-runs.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'

const PASSES = Number(process.env.BENCH_PASSES ?? 10)
const CONCURRENCY = [2, 4, 16, 64]
const CORES = availableParallelism()
const BASELINE = process.env.BENCH_BASELINE_ADDON
const ADDON = path.join(import.meta.dirname, '../../build/Release/svc_tts.node')
const megabytes = (file: string) => (existsSync(file) ? `${(statSync(file).size / 1e6).toFixed(1)} MB` : 'not found')
/** Every subject here counts its CPU time. */
const cpuOf = (pass: Pass) => pass.cpuPerWall!

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  const builds = [{ name: 'copies', host: await startEspeakHost() }, ...(BASELINE ? [{ name: 'one lock (before)', host: await startEspeakHost({ binding: BASELINE }) }] : [])]
  const subjects: { build: string; text: string; clients?: number; run: () => Promise<Pass> }[] = [
    { build: `raw limit: ${CORES} \`espeak-ng -w\` processes`, text: 'the 20, ten times, as one text', run: () => espeakPrograms(dir, CORES, { cpuTime: true }) },
    ...[false, true].flatMap((whole) => builds.flatMap(({ name, host }) => CONCURRENCY.map((clients) => ({
      // About 470 s of audio a pass, as one process of the raw limit makes.
      build: name, text: whole ? 'the 20 as one text' : 'one sentence', clients, run: () => host.pass(clients, whole, whole ? 10 : 200),
    })))),
  ]
  try {
    for (const subject of subjects) await subject.run()  // warm-up: voices loaded, code paged in
    const passes = subjects.map(() => [] as Pass[])
    for (let p = 0; p < PASSES; p++) {
      // Each pass in another order, so that no subject always follows the same one.
      const order = subjects.map((_, i) => (i + p) % subjects.length)
      for (const i of order) passes[i]!.push(await subjects[i]!.run())
      process.stderr.write(`[espeak-cores] pass ${p + 1}/${PASSES}\n`)
    }
    const limit = median(passes[0]!.map((pass) => pass.audioPerSecond))
    const rows = subjects.map((subject, i) => {
      const rates = passes[i]!.map((pass) => pass.audioPerSecond)
      const rate = median(rates)
      const cores = median(passes[i]!.map(cpuOf))
      const perCpu = median(passes[i]!.map((pass) => pass.audioPerSecond / cpuOf(pass)))
      return `| ${subject.build} | ${subject.text} | ${subject.clients ?? CORES} | ${rate.toFixed(0)} (p5 ${quantile(rates, 0.05).toFixed(0)}, p95 ${quantile(rates, 0.95).toFixed(0)}) | ${(rate / limit).toFixed(2)} | ${cores.toFixed(2)} | ${perCpu.toFixed(0)} |`
    })
    const copies = passes[1]!.at(-1)!.counters!
    // What the builds' passes show together: cores used on whole texts, and audio per CPU second against the raw limit's.
    const across = (build: string, whole: boolean | undefined, figure: (pass: Pass) => number) =>
      median(subjects.flatMap((subject, i) => (subject.build === build && (whole === undefined || (subject.text !== 'one sentence') === whole) ? passes[i]!.map(figure) : [])))
    const cores = cpuOf
    const perCpu = (pass: Pass) => pass.audioPerSecond / cpuOf(pass)
    const limitPerCpu = median(passes[0]!.map(perCpu))
    const ratio = across('copies', undefined, perCpu) / limitPerCpu
    const reading = `Reading: on whole texts the copies used ${across('copies', true, cores).toFixed(2)} cores where one lock used ${across('one lock (before)', true, cores).toFixed(2)}; on one sentence a request, ${across('copies', false, cores).toFixed(2)} against ${across('one lock (before)', false, cores).toFixed(2)}. A CPU second makes ${across('copies', undefined, perCpu).toFixed(0)} s of audio in-process (copies) and ${limitPerCpu.toFixed(0)} s in the espeak-ng program, ${ratio.toFixed(2)} of it: espeak-ng's own code is about 70% of the engine's CPU time (perf, one sentence a request, 4 at once: 65% in espeak-ng's functions, 17% in Node and V8, 7% in the kernel), the rest the work around each request (planning, V8's collector, handing audio between threads), which is why one sentence a request stays further from the limit than whole texts. (Before each copy's random source had cache lines of its own, two copies' generators shared one, and that line's transfers between the cores took about a fifth of the engine's CPU.) So where both have the whole machine, the engine makes at most ${ratio.toFixed(2)} of the raw limit; on a machine shared with other work each gets the share the scheduler gives its threads, and the ratio to the limit moves with it.`
    const seconds = Math.round((Date.now() - started) / 1000)
    const section = writeSection('espeak-cores', `
## espeak-ng on every core

Generated by \`BENCH_BASELINE_ADDON=… node --import tsx bench/studies/espeak-cores.ts\`; ${new Date(started).toISOString()}, ${seconds} s, ${CORES} cores, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end.

Method: seconds of espeak-ng audio (en-us+f3, Sarah) made per second of wall time, over ${PASSES} passes of each subject taken in turns (median, p5-p95), each pass about 470 s of audio from each client process or engine. The raw limit runs one \`espeak-ng -w FILE TEXT\` process per core at once. In-process, C clients each send \`engine.synthesize()\` (raw PCM, 22.05 kHz) one request after another, in an engine process of its own with synthesis threads at the process's priority (\`threadNice: 0\`, as the espeak-ng processes run): "copies" is this build (${copies.poolThreads} pool threads, so ${copies.espeakInstances} espeak-ng copies in use; at most ${copies.espeakBusyPeak} were busy at once); "one lock (before)" is the addon built before it, where every espeak-ng call took one process-wide lock${BASELINE ? '' : ' (not run: no BENCH_BASELINE_ADDON)'}. The addon is ${megabytes(ADDON)} with its espeak-ng copies${BASELINE ? `, ${megabytes(BASELINE)} before` : ''}. Cores used is CPU time over the pass's wall time (the engine process's, or the espeak-ng processes' as GNU time gives it): 2 would be both cores. Audio per CPU second is the audio made over that CPU time: what a core makes, whatever share of the machine the pass got.

| build | each request | C | audio seconds a second | of the raw limit | cores used | audio seconds per CPU second |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

${reading}
`)
    process.stdout.write(section)
  } finally {
    for (const { host } of builds) host.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
