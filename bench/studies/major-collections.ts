/**
 * V8's major collections in an engine process over time: C closed-loop clients (default 2) send
 * engine.synthesize() one Harvard sentence after another for W windows of 5 s (default 8), and each
 * window prints its audio seconds a second, its major (mark-compact) collections and the process's
 * CPU time over the window's wall time. Run it under the Node and with the V8 options to compare
 * (bench/RESULTS.md, "V8 in a small process"; docs/library.md):
 *
 *   [HOST_SUBJECT=espeak|kal16|slt] [C=2] [W=8] node [--initial-old-space-size=64 | --max-semi-space-size=2] --import tsx bench/studies/major-collections.ts
 */
import { createEngine } from '../../lib/index.js'
import { countMajorCollections } from '../harness/major-collections.js'
import { requestFor, subjectById } from '../harness/subjects.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'

const WINDOW_MS = 5000
const subject = subjectById(process.env.HOST_SUBJECT ?? 'espeak')
const sentences = HARVARD_SENTENCES.map((sentence) => requestFor(subject, sentence))
const clients = Number(process.env.C ?? 2)
const windows = Number(process.env.W ?? 8)

const majors = countMajorCollections()

const engine = await createEngine({ threadNice: 0 })
let next = 0
let bytes = 0
const started = performance.now()
let window = { at: started, bytes: 0, majors: 0, cpu: process.cpuUsage() }
const lines: string[] = []
const timer = setInterval(() => {
  const now = performance.now()
  const cpu = process.cpuUsage(window.cpu)
  const seconds = (now - window.at) / 1000
  lines.push(`${lines.length + 1}: ${((bytes - window.bytes) / 2 / subject.sampleRate / seconds).toFixed(0)} audio s/s, ${majors() - window.majors} major GCs, ${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2)} cores`)
  window = { at: now, bytes, majors: majors(), cpu: process.cpuUsage() }
}, WINDOW_MS)
await Promise.all(Array.from({ length: clients }, async () => {
  while (lines.length < windows) {
    const audio = await engine.synthesize(sentences[next++ % sentences.length]!)
    bytes += audio.length
  }
}))
clearInterval(timer)
await engine.close()
console.log(`${subject.id}, ${clients} clients, Node ${process.version} ${process.execArgv.filter((arg, i, all) => arg !== '--import' && all[i - 1] !== '--import').join(' ')}\n${lines.join('\n')}`)
