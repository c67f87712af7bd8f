/**
 * In-process throughput (seconds of audio made per second) against the machine's raw limit, for
 * espeak-ng, flite kal16 and flite slt: the raw limit is one process of the synthesizer's own
 * program per core, all at once, each speaking the 20 Harvard sentences as one text (several times
 * over, so that process start-up weighs little). In-process, C closed-loop clients send
 * engine.synthesize() one sentence after another, or the 20 sentences as one text (raw PCM at the
 * backend's own rate), at C = 2, 4, 16 and 64, in an engine process of its own
 * (bench/workers/engine-host.ts): once as Node starts it, once with V8's old generation sized from
 * the start (HEAP_OPTIONS), and with a baseline (named by BENCH_BASELINE_LABEL) the same again:
 * BENCH_BASELINE_ADDON, another build of the addon, or BENCH_BASELINE_ROOT, a checkout of another
 * commit (its node_modules and build/ linked from this one), whose engine host runs its own library.
 * VOICES=espeak,kal16 keeps to some of the synthesizers. The subjects take turns in short passes, so
 * that load from elsewhere on a shared machine falls on all of them alike. Writes its section of
 * bench/RESULTS.md.
 *
 *   [BENCH_BASELINE_ADDON=<other build>/svc_tts.node | BENCH_BASELINE_ROOT=<checkout>] [BENCH_BASELINE_LABEL=…] [VOICES=…] node --import tsx bench/studies/cores.ts
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { harvardTimes, programOf, programsAtOnce, startEngineHost, type EngineHost, type Pass } from '../harness/core-runs.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'
import { subjectById } from '../harness/subjects.js'

const PASSES = Number(process.env.BENCH_PASSES ?? 10)
const CONCURRENCY = [2, 4, 16, 64]
const CORES = availableParallelism()
const BASELINE = process.env.BENCH_BASELINE_ADDON
const BASELINE_ROOT = process.env.BENCH_BASELINE_ROOT
const BASELINE_LABEL = process.env.BENCH_BASELINE_LABEL ?? (BASELINE_ROOT ? 'baseline checkout' : 'baseline addon')
/** V8's old generation sized from the start, as in a process that holds more live data than the engine alone (docs/library.md). */
const HEAP_OPTIONS = ['--initial-old-space-size=64']
const THIS_BUILD = 'this build'
const SIZED = `this build, \`${HEAP_OPTIONS.join(' ')}\``
const ADDON = path.join(import.meta.dirname, '../../build/Release/svc_tts.node')
/**
 * The synthesizers, with how much each pass speaks: `times` the 20 sentences for a program and for
 * a whole-text request, so that a pass of the slow voice takes about as long as the others'.
 */
const VOICES = [
  { subject: subjectById('espeak'), name: 'espeak-ng', times: 10 },
  { subject: subjectById('kal16'), name: 'flite kal16', times: 10 },
  { subject: subjectById('slt'), name: 'flite slt', times: 4 },
].filter(({ subject }) => !process.env.VOICES || process.env.VOICES.split(',').includes(subject.id))
const megabytes = (file: string) => (existsSync(file) ? `${(statSync(file).size / 1e6).toFixed(1)} MB` : 'not found')
/** Every subject here counts its CPU time. */
const cpuOf = (pass: Pass) => pass.cpuPerWall!
const perCpu = (pass: Pass) => pass.audioPerSecond / cpuOf(pass)

interface Subject {
  voice: string
  build: string
  text: string
  clients?: number
  run: () => Promise<Pass>
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  const hosts: EngineHost[] = []
  const host = async (options: Parameters<typeof startEngineHost>[0]) => {
    const started = await startEngineHost(options)
    hosts.push(started)
    return started
  }
  const subjects: Subject[] = []
  for (const { subject, name, times } of VOICES) {
    const builds = [
      { build: THIS_BUILD, host: await host({ subject: subject.id }) },
      { build: SIZED, host: await host({ subject: subject.id, nodeOptions: HEAP_OPTIONS }) },
      ...(BASELINE || BASELINE_ROOT ? [{ build: BASELINE_LABEL, host: await host({ subject: subject.id, ...(BASELINE && { binding: BASELINE }), ...(BASELINE_ROOT && { root: BASELINE_ROOT }) }) }] : []),
    ]
    const limit = () => programsAtOnce(dir, CORES, programOf(subject), harvardTimes(times), { cpuTime: true })
    subjects.push({ voice: name, build: `raw limit: ${CORES} \`${subject.cli!.command}\` processes`, text: `the 20, ${times} times, as one text`, run: limit })
    for (const whole of [false, true]) {
      for (const { build, host } of builds) {
        for (const clients of CONCURRENCY) {
          // As much audio a pass as one process of the raw limit makes.
          subjects.push({ voice: name, build, text: whole ? 'the 20 as one text' : 'one sentence', clients, run: () => host.pass(clients, whole, whole ? times : 20 * times) })
        }
      }
    }
  }
  try {
    for (const subject of subjects) await subject.run()  // warm-up: voices loaded, code paged in
    const passes = subjects.map(() => [] as Pass[])
    for (let p = 0; p < PASSES; p++) {
      // Each pass in another order, so that no subject always follows the same one.
      const order = subjects.map((_, i) => (i + p) % subjects.length)
      for (const i of order) passes[i]!.push(await subjects[i]!.run())
      process.stderr.write(`[cores] pass ${p + 1}/${PASSES}\n`)
    }
    const limits = new Map(subjects.flatMap((subject, i) => (subject.clients === undefined ? [[subject.voice, passes[i]!]] : [])))
    const limitOf = (voice: string) => median(limits.get(voice)!.map((pass) => pass.audioPerSecond))
    const rows = subjects.map((subject, i) => {
      const rates = passes[i]!.map((pass) => pass.audioPerSecond)
      const rate = median(rates)
      const gc = passes[i]![0]!.majorGcPerSecond === undefined ? '' : median(passes[i]!.map((pass) => pass.majorGcPerSecond!)).toFixed(1)
      const loop = passes[i]![0]!.loopMsPerRequest === undefined ? '' : median(passes[i]!.map((pass) => pass.loopMsPerRequest!)).toFixed(3)
      return `| ${subject.voice} | ${subject.build} | ${subject.text} | ${subject.clients ?? CORES} | ${rate.toFixed(0)} (p5 ${quantile(rates, 0.05).toFixed(0)}, p95 ${quantile(rates, 0.95).toFixed(0)}) | ${(rate / limitOf(subject.voice)).toFixed(2)} | ${median(passes[i]!.map(cpuOf)).toFixed(2)} | ${median(passes[i]!.map(perCpu)).toFixed(0)} | ${loop} | ${gc} |`
    })
    const counters = passes[1]!.at(-1)!.counters!
    // What a voice's build shows over the cells that `cell` picks.
    const across = (voice: string, build: string, cell: (subject: Subject) => boolean, figure: (pass: Pass) => number) =>
      median(subjects.flatMap((subject, i) => (subject.voice === voice && subject.build === build && cell(subject) ? passes[i]!.map(figure) : [])))
    const every = () => true
    const sentences = (clients?: number) => (subject: Subject) => subject.text === 'one sentence' && (clients === undefined || subject.clients === clients)
    const range = (voice: string, build: string, cell: (clients: number) => (subject: Subject) => boolean) => {
      const ratios = CONCURRENCY.map((clients) => across(voice, build, cell(clients), (pass) => pass.audioPerSecond / limitOf(voice)))
      return `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`
    }
    const wholeTexts = (clients: number) => (subject: Subject) => subject.text === 'the 20 as one text' && subject.clients === clients
    const perVoice = VOICES.map(({ name }) => {
      const limitPerCpu = median(limits.get(name)!.map(perCpu))
      return `${name}: one sentence a request ${range(name, THIS_BUILD, sentences)} of the raw limit (C = 2 to 64), ${range(name, SIZED, sentences)} with the old generation sized; whole texts ${range(name, THIS_BUILD, wholeTexts)} and ${range(name, SIZED, wholeTexts)}; a CPU second makes ${across(name, THIS_BUILD, every, perCpu).toFixed(0)} s of audio in-process and ${limitPerCpu.toFixed(0)} s in the program (${(across(name, THIS_BUILD, every, perCpu) / limitPerCpu).toFixed(2)}); the event loop ${across(name, THIS_BUILD, sentences(2), (pass) => pass.loopMsPerRequest!).toFixed(3)} ms of CPU a sentence at C = 2${BASELINE || BASELINE_ROOT ? ` (${across(name, BASELINE_LABEL, sentences(2), (pass) => pass.loopMsPerRequest ?? NaN).toFixed(3)} in ${BASELINE_LABEL})` : ''}; major GCs ${across(name, THIS_BUILD, sentences(), (pass) => pass.majorGcPerSecond!).toFixed(1)} a second against ${across(name, SIZED, sentences(), (pass) => pass.majorGcPerSecond!).toFixed(1)}.`
    })
    const baseline = BASELINE || BASELINE_ROOT
      ? ` ${BASELINE_LABEL}: ${VOICES.map(({ name }) => `${name} one sentence a request ${range(name, BASELINE_LABEL, sentences)}`).join(', ')}.`
      : ''
    const reading = `Reading: ${perVoice.join(' ')} The engine's CPU beyond the program's is the work around each request (planning, V8's collector, handing audio between threads), which is why one sentence a request stays further from the limit than whole texts, most of all with few clients, where each request's turn through the event loop leaves its synthesis thread idle. The engine host holds about 10 MB of live JavaScript objects, and V8 counts live audio (ArrayBuffers) against the room its old generation has left: with little room, it runs major collections once its young generation has grown to full size, each marking the whole heap on the same two cores. The engine frees the audio it has copied on at once (docs/architecture.md), which leaves each request's own result to collect; an old generation sized from the start (or an application that holds more live data than the engine alone) takes the rest away (docs/library.md).${baseline} On a machine shared with other work each subject gets the share the scheduler gives its threads, and the ratio to the limit moves with it.`
    const seconds = Math.round((Date.now() - started) / 1000)
    const section = writeSection('cores', `
## In-process throughput on every core

Generated by \`${BASELINE ? 'BENCH_BASELINE_ADDON=… BENCH_BASELINE_LABEL=… ' : BASELINE_ROOT ? 'BENCH_BASELINE_ROOT=… BENCH_BASELINE_LABEL=… ' : ''}${process.env.VOICES ? `VOICES=${process.env.VOICES} ` : ''}node --import tsx bench/studies/cores.ts\`; ${new Date(started).toISOString()}, ${seconds} s, ${CORES} cores, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end.

Method: seconds of audio made per second of wall time, over ${PASSES} passes of each subject taken in turns (median, p5-p95), each pass as much audio from each client process or engine as one process of the raw limit makes. The raw limit runs one process of the synthesizer's program per core at once (\`espeak-ng -v en-us+f3 -w FILE TEXT\`, \`flite -voice kal16|slt -t TEXT -o FILE\`). In-process, C clients each send \`engine.synthesize()\` (raw PCM at the backend's rate) one request after another (a whole-text pass sends as many requests as the program's text has copies of the 20, so no more than that many are in flight), in an engine process of its own with synthesis threads at the process's priority (\`threadNice: 0\`, as the programs run): "this build" as \`node\` starts it (${counters.poolThreads} pool threads, so ${counters.espeakInstances} espeak-ng copies in use; at most ${counters.espeakBusyPeak} were busy at once), and again with \`${HEAP_OPTIONS.join(' ')}\`${BASELINE ? `; "${BASELINE_LABEL}" is another build of the addon (${megabytes(BASELINE)})` : BASELINE_ROOT ? `; "${BASELINE_LABEL}" is the engine host and library of another commit's checkout, on this addon` : ''}. The addon is ${megabytes(ADDON)}. Cores used is CPU time over the pass's wall time (the engine process's, or the programs' as GNU time gives it): ${CORES} would be every core. Audio per CPU second is the audio made over that CPU time: what a core makes, whatever share of the machine the pass got. Event loop: the engine process's main thread's CPU time (the scheduler's count, /proc's schedstat) over the pass's requests. Major GCs: V8's major (mark-compact) collections a second in the engine process (\`gc\` performance entries).

| synthesizer | build | each request | C | audio seconds a second | of the raw limit | cores used | audio seconds per CPU second | event loop, CPU ms a request | major GCs a second |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

${reading}
`)
    process.stdout.write(section)
  } finally {
    for (const started of hosts) started.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
