/**
 * One engine in its own process, for bench/studies/espeak-cores.ts: so that two builds of the
 * addon (SVC_TTS_NATIVE_BINDING) can take turns on the same machine. Synthesis threads at the
 * process's own priority (threadNice 0), as the espeak-ng processes it is compared with run. On a
 * message { clients, whole, requests } it runs one pass: `clients` closed loops send `requests`
 * engine.synthesize() calls in all, each one Harvard sentence, or all 20 when `whole`; it answers
 * with the audio made per second of wall time, its CPU time over the wall time, and its counters.
 */
import { createEngine, PREDEFINED_VOICES } from '../../lib/index.js'
import { HARVARD_SENTENCES } from '../harness/texts.js'

const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id
const FORMAT = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 } as const
const WHOLE = HARVARD_SENTENCES.join(' ')
const engine = await createEngine({ threadNice: 0 })

type Pass = { clients: number; whole: boolean; requests: number }

async function run({ clients, whole, requests }: Pass) {
  let next = 0
  let bytes = 0
  const started = performance.now()
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < requests) {
      const transcript = whole ? WHOLE : HARVARD_SENTENCES[next % HARVARD_SENTENCES.length]!
      next++
      const audio = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: sarah }, output_format: FORMAT })
      bytes += audio.length  // not `bytes += await …`, which adds to the sum as it was before the wait
    }
  }))
  const wall = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(before)
  return { audioPerSecond: bytes / (2 * 22050) / wall, cpuPerWall: (cpu.user + cpu.system) / 1e6 / wall, counters: engine.counters() }
}

process.on('message', (message: Pass | 'stop') => {
  if (message === 'stop') void engine.close().then(() => process.exit(0))
  else void run(message).then((result) => process.send!(result))
})
process.send!('ready')
