/**
 * One engine in its own process, for the throughput studies (bench/studies/cores.ts,
 * espeak-scaling.ts): so that builds of the addon (SVC_TTS_NATIVE_BINDING) and Node's options can
 * take turns on the same machine. It speaks one subject of bench/harness/subjects.ts (HOST_SUBJECT,
 * default espeak) at the backend's own rate, synthesis threads at the process's own priority
 * (threadNice 0), as the programs it is compared with run. On a message { clients, whole, requests }
 * it runs one pass: `clients` closed loops send `requests` engine.synthesize() calls in all, each one
 * Harvard sentence, or all 20 when `whole`; it answers with the audio made per second of wall time,
 * its CPU time over the wall time, its main thread's (the event loop's) CPU ms a request, V8's
 * major collections a second, and its counters.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { createEngine, PREDEFINED_VOICES } from '../../lib/index.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { subjectById } from '../harness/subjects.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'

const subject = subjectById(process.env.HOST_SUBJECT ?? 'espeak')
const voice = { mode: 'id', id: PREDEFINED_VOICES.find((v) => v.record.name === subject.voiceName)!.record.voice_id } as const
const FORMAT = { container: 'raw', encoding: 'pcm_s16le', sample_rate: subject.sampleRate } as const
const WHOLE = HARVARD_SENTENCES.join(' ')
const engine = await createEngine({ threadNice: 0 })
let majorCollections = 0
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorCollections++
}).observe({ entryTypes: ['gc'] })

type Pass = { clients: number; whole: boolean; requests: number }

async function run({ clients, whole, requests }: Pass) {
  let next = 0
  let bytes = 0
  const majorBefore = majorCollections
  const started = performance.now()
  const before = process.cpuUsage()
  const loopBefore = mainThreadCpuMs(process.pid)
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < requests) {
      const transcript = whole ? WHOLE : HARVARD_SENTENCES[next % HARVARD_SENTENCES.length]!
      next++
      const audio = await engine.synthesize({ model_id: subject.model_id, transcript, voice, output_format: FORMAT })
      bytes += audio.length  // not `bytes += await …`, which adds to the sum as it was before the wait
    }
  }))
  const wall = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(before)
  return {
    audioPerSecond: bytes / (2 * subject.sampleRate) / wall,
    cpuPerWall: (cpu.user + cpu.system) / 1e6 / wall,
    loopMsPerRequest: (mainThreadCpuMs(process.pid) - loopBefore) / requests,
    majorGcPerSecond: (majorCollections - majorBefore) / wall,
    counters: engine.counters(),
  }
}

process.on('message', (message: Pass | 'stop') => {
  if (message === 'stop') void engine.close().then(() => process.exit(0))
  else void run(message).then((result) => process.send!(result))
})
process.send!('ready')
