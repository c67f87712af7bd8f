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
import { createEngine } from '../../lib/index.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { countMajorCollections } from '../harness/major-collections.js'
import { requestFor, subjectById } from '../harness/subjects.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'

const subject = subjectById(process.env.HOST_SUBJECT ?? 'espeak')
const SENTENCES = HARVARD_SENTENCES.map((sentence) => requestFor(subject, sentence))
const WHOLE = requestFor(subject, HARVARD_SENTENCES.join(' '))
const engine = await createEngine({ threadNice: 0 })
const majorCollections = countMajorCollections()

type Pass = { clients: number; whole: boolean; requests: number }

async function run({ clients, whole, requests }: Pass) {
  let next = 0
  let bytes = 0
  const majorBefore = majorCollections()
  const started = performance.now()
  const before = process.cpuUsage()
  const loopBefore = mainThreadCpuMs(process.pid)
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < requests) {
      const request = whole ? WHOLE : SENTENCES[next % SENTENCES.length]!
      next++
      const audio = await engine.synthesize(request)
      bytes += audio.length  // not `bytes += await …`, which adds to the sum as it was before the wait
    }
  }))
  const wall = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(before)
  return {
    audioPerSecond: bytes / (2 * subject.sampleRate) / wall,
    cpuPerWall: (cpu.user + cpu.system) / 1e6 / wall,
    loopMsPerRequest: (mainThreadCpuMs(process.pid) - loopBefore) / requests,
    majorGcPerSecond: (majorCollections() - majorBefore) / wall,
    counters: engine.counters(),
  }
}

process.on('message', (message: Pass | 'stop') => {
  if (message === 'stop') void engine.close().then(() => process.exit(0))
  else void run(message).then((result) => process.send!(result))
})
process.send!('ready')
