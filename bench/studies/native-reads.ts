/**
 * How many reads of the native stream a request takes, and the event loop's CPU a request: C
 * closed-loop clients (default 2) for SECONDS (default 4) after a warm-up, each request one Harvard
 * sentence through engine.synthesize() (joined: each chunk read whole), or two through
 * engine.stream() (a streaming reader). Every read is a wake of the event loop, a buffer, a promise
 * and a turn of the engine's iterators. Counts the calls of the addon's SynthStream.next(). It
 * prints; it writes no section of RESULTS.md. To compare builds of the addon, run it with
 * SVC_TTS_NATIVE_BINDING naming each, interleaved (bench/RESULTS.md, "Measurements behind design
 * choices").
 *
 *   [SVC_TTS_NATIVE_BINDING=<build>/svc_tts.node] [C=2] [SECONDS=4] node --import tsx bench/studies/native-reads.ts
 */
import { createEngine } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { requestFor, subjectById } from '../harness/subjects.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'

const CLIENTS = Number(process.env.C ?? 2)
const SECONDS = Number(process.env.SECONDS ?? 4)
const WARM_UP_SECONDS = 1

let reads = 0
const { prototype } = loadNative().SynthStream
const next = prototype.next
prototype.next = function (this: typeof prototype) {
  reads++
  return next.call(this)
}

const engine = await createEngine({ threadNice: 0 })

async function measure(subjectId: string, mode: 'synthesize' | 'stream', seconds: number): Promise<string> {
  const subject = subjectById(subjectId)
  const count = HARVARD_SENTENCES.length
  const requests = HARVARD_SENTENCES.map((sentence, index) => requestFor(subject, mode === 'synthesize' ? sentence : `${sentence} ${HARVARD_SENTENCES[(index + 1) % count]}`))
  let made = 0
  reads = 0
  const loopBefore = mainThreadCpuMs(process.pid)
  const started = performance.now()
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() - started < seconds * 1000) {
      const request = requests[made++ % count]!
      if (mode === 'synthesize') await engine.synthesize(request)
      else for await (const audio of engine.stream(request)) void audio
    }
  }))
  const loopMs = mainThreadCpuMs(process.pid) - loopBefore
  return `${subject.id}, ${mode === 'synthesize' ? 'synthesize(), one sentence' : 'stream(), two sentences'}: ${(reads / made).toFixed(2)} reads a request, the event loop ${(loopMs / made).toFixed(3)} ms of CPU a request (${made} requests, ${CLIENTS} clients)`
}

for (const subject of ['espeak', 'kal16']) {
  for (const mode of ['synthesize', 'stream'] as const) {
    await measure(subject, mode, WARM_UP_SECONDS)
    console.log(await measure(subject, mode, SECONDS))
  }
}
await engine.close()
