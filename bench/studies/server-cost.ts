/**
 * What the service costs over the engine it serves: in one sitting, interleaved, the audio seconds
 * a second that the engine makes in-process and that `svc-tts serve` makes over HTTP (synthesis
 * threads at nice 0 and at nice 10) at 2, 4, 16 and 64 concurrent closed-loop clients, for
 * espeak-ng, flite kal16 and flite slt. Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/server-cost.ts      (PASSES=5 SECONDS=2 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { createEngine, PREDEFINED_VOICES, type Engine } from '../../lib/index.js'
import { DEFAULT_THREAD_NICE } from '../../lib/engine/options.js'
import { mainThreadCpuMs } from '../harness/main-thread-cpu.js'
import { writeSection } from '../harness/results.js'
import { median, spread } from '../harness/stats.js'

const root = path.resolve(import.meta.dirname, '../..')
const KEY = 'sk_bench_0000000000000000000000000000000000000000'
const PASSES = Number(process.env.PASSES ?? 5)
const SECONDS = Number(process.env.SECONDS ?? 2)
const CONCURRENCY = [2, 4, 16, 64]
const NICES = [0, 10]
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const voiceId = (name: string) => PREDEFINED_VOICES.find((v) => v.record.name === name)!.record.voice_id
const VOICES = [
  { name: 'espeak-ng (Sarah, svc_flash_v1.5)', model_id: 'svc_flash_v1.5', voice: voiceId('Sarah'), sampleRate: 22050 },
  { name: 'flite kal16 (Kal, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', voice: voiceId('Kal'), sampleRate: 16000 },
  { name: 'flite slt (Sarah, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', voice: voiceId('Sarah'), sampleRate: 16000 },
] as const
type Voice = (typeof VOICES)[number]

const requestOf = (voice: Voice) => ({
  model_id: voice.model_id,
  transcript: TEXT,
  voice: { mode: 'id' as const, id: voice.voice },
  output_format: { container: 'raw' as const, encoding: 'pcm_s16le' as const, sample_rate: voice.sampleRate },
})

interface Served {
  child: ChildProcess
  port: number
}

/** `svc-tts serve` (bench/workers/serve-cost-host.ts) with its log lines read here, once it listens. */
function startServer(nice: number): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../workers/serve-cost-host.ts')], {
    cwd: root,
    env: { ...process.env, SVC_TTS_API_KEYS: KEY, THREAD_NICE: String(nice) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let pending = ''
    child.stdout!.on('data', (part: Buffer) => {
      pending += String(part)
      const lines = pending.split('\n')
      pending = lines.pop()!
      const listening = lines.find((line) => line.includes('"listening"'))
      if (listening) resolve({ child, port: Number(new URL((JSON.parse(listening) as { url: string }).url).port) })
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)))
  })
}

/** Audio seconds a second over `seconds` of `clients` closed loops, each starting its next request once the last one's audio is read; and how many requests. */
async function closedLoop(clients: number, seconds: number, once: () => Promise<number>, bytesPerSecond: number): Promise<{ rate: number; requests: number }> {
  const started = performance.now()
  const ends = started + seconds * 1000
  let bytes = 0
  let requests = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < ends) {
      const made = await once()  // awaited first: `bytes += await` would add to the total read before the wait
      bytes += made
      requests++
    }
  }))
  return { rate: bytes / bytesPerSecond / ((performance.now() - started) / 1000), requests }
}

function inProcess(engine: Engine, voice: Voice): () => Promise<number> {
  const body = requestOf(voice)
  return async () => {
    let bytes = 0
    for await (const part of engine.stream(body)) bytes += part.length
    return bytes
  }
}

function overHttp(port: number, agent: Agent, voice: Voice): () => Promise<number> {
  const body = JSON.stringify(requestOf(voice))
  return () => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, agent, path: '/text_to_speech/streaming', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`status ${response.statusCode}`))
      let bytes = 0
      response.on('data', (part: Buffer) => (bytes += part.length))
      response.on('end', () => resolve(bytes))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  // Throughput: every cell once a pass, the three subjects of a cell back to back in an order that turns each pass.
  const engine = await createEngine()
  const servers = new Map<number, Served>()
  for (const nice of NICES) servers.set(nice, await startServer(nice))
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  type Subject = { label: string; once: (voice: Voice) => () => Promise<number>; pid?: number }
  const subjects: Subject[] = [
    { label: 'in-process', once: (voice) => inProcess(engine, voice) },
    ...NICES.map((nice) => ({ label: `HTTP nice ${nice}`, once: (voice: Voice) => overHttp(servers.get(nice)!.port, agent, voice), pid: servers.get(nice)!.child.pid! })),
  ]
  const figures = new Map<string, number[]>()
  /** The server's main-thread CPU per request, in ms, for each HTTP cell. */
  const mainCpu = new Map<string, number[]>()
  const cell = (voice: Voice, clients: number, label: string) => `${voice.name}|${clients}|${label}`
  for (const voice of VOICES) for (const subject of subjects) await closedLoop(4, 0.5, subject.once(voice), voice.sampleRate * 2)  // warm-up
  for (let pass = 0; pass < PASSES; pass++) {
    for (const voice of VOICES) {
      for (const clients of CONCURRENCY) {
        for (let turn = 0; turn < subjects.length; turn++) {
          const subject = subjects[(turn + pass) % subjects.length]!
          const cpuBefore = subject.pid === undefined ? 0 : mainThreadCpuMs(subject.pid)
          const { rate, requests } = await closedLoop(clients, SECONDS, subject.once(voice), voice.sampleRate * 2)
          const key = cell(voice, clients, subject.label)
          figures.set(key, [...(figures.get(key) ?? []), rate])
          if (subject.pid !== undefined) mainCpu.set(key, [...(mainCpu.get(key) ?? []), (mainThreadCpuMs(subject.pid) - cpuBefore) / requests])
        }
      }
    }
  }
  agent.destroy()
  for (const served of servers.values()) served.child.kill('SIGTERM')
  await engine.close()
  const loadAfterThroughput = loadavg()[0]!

  const rows: string[] = []
  for (const voice of VOICES) {
    for (const clients of CONCURRENCY) {
      const local = figures.get(cell(voice, clients, 'in-process'))!
      const http = NICES.map((nice) => figures.get(cell(voice, clients, `HTTP nice ${nice}`))!)
      const cpu = NICES.map((nice) => median(mainCpu.get(cell(voice, clients, `HTTP nice ${nice}`))!).toFixed(2))
      rows.push(`| ${voice.name} | ${clients} | ${spread(local)} | ${http.map((values) => `${spread(values)} | ${(median(values) / median(local)).toFixed(2)}`).join(' | ')} | ${cpu.join(' / ')} |`)
    }
  }
  const section = writeSection('server-cost', `## Server cost

Generated by \`node --import tsx bench/studies/server-cost.ts\` (PASSES=${PASSES} SECONDS=${SECONDS}); ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${cpus().length} cores shared with other work, 1-minute load average ${loadBefore.toFixed(2)} at the start, ${loadAfterThroughput.toFixed(2)} after the throughput passes and ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows up in every figure).

Throughput: audio seconds made a second by N closed-loop clients, each sending its next request once the last one's audio is read, for ${SECONDS} s a cell: "${TEXT}", raw pcm_s16le at the voice's rate. In-process: \`engine.stream()\` in this process (synthesis threads at the default nice ${DEFAULT_THREAD_NICE}). HTTP: POST /text_to_speech/streaming on keep-alive node:http connections to \`svc-tts serve\` in its own process (a log line per request, read by this process as a log collector would), its synthesis threads at nice 0 or 10; this process is the client and shares the ${cpus().length} cores. ${PASSES} passes, each cell once a pass, the subjects of a cell back to back in an order that turns each pass. Median (p5-p95 over the passes; with ${PASSES} passes, about the lowest and highest); ratio = HTTP median / in-process median. The server's main-thread CPU a request (from /proc, median over the passes) is the figure the machine's other work inflates least. Over HTTP the same cores also run the client's side of every request (node:http parsing what the in-process figure never pays) and the server's event loop (about 1.5-2 ms of CPU a request: HTTP parsing, the request's validation, planning, the writes and the log line), so on 2 cores a voice whose synthesis takes less CPU than that per request cannot reach 0.9 of its in-process rate.

| synthesizer | clients | in-process, audio s/s | HTTP nice 0 | ratio | HTTP nice 10 | ratio | server main thread, CPU ms a request (nice 0 / 10) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`)
  process.stdout.write(section)
}

await main()
process.exit(0)
