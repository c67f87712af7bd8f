/**
 * What the service costs over the engine it serves: in one sitting, interleaved, the audio seconds
 * a second that the engine makes in-process and that `svc-tts serve` makes over HTTP (synthesis
 * threads at nice 0 and at nice 10) at 2, 4, 16 and 64 concurrent closed-loop clients, for
 * espeak-ng, flite kal16 and flite slt; the CPU each side spends a request; and the floor, a bare
 * node:http server handing out the same audio made once, which bounds what any HTTP service can
 * reach of the in-process rate on cores its client shares. Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/server-cost.ts      (PASSES=5 SECONDS=2 WARMUP_SECONDS=10 by default)
 *
 * SERVER_CPUS=N runs the servers, the floor and the in-process engine (then in a process of its own,
 * bench/workers/stream-loop-host.ts) on the first N CPUs (`taskset`), so that on a larger machine the
 * client (this process, run on the other CPUs) has cores of its own. VOICES=espeak,kal16 leaves slt out.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { Agent } from 'node:http'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { createEngine } from '../../lib/index.js'
import { DEFAULT_THREAD_NICE } from '../../lib/engine/options.js'
import { closedLoop, streamedBytes } from '../harness/closed-loop.js'
import { mainThreadCpuMs, ownCpuMs, processCpuMs } from '../harness/cpu-time.js'
import { writeSection } from '../harness/results.js'
import { overHttp, requestOf, SERVED_VOICES, startServed, TEXT, type Served, type ServedVoice } from '../harness/served-voices.js'
import { median, spread } from '../harness/stats.js'
import { workerCommand } from '../harness/worker-command.js'

const root = path.resolve(import.meta.dirname, '../..')
const PASSES = Number(process.env.PASSES ?? 5)
const SECONDS = Number(process.env.SECONDS ?? 2)
/**
 * Load on every subject and voice before the passes: V8 optimizes a function once it has run
 * enough, and a request runs many once each (bench/RESULTS.md, "A server measured warm").
 */
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 10)
const CONCURRENCY = [2, 4, 16, 64]
const SERVER_CPUS = process.env.SERVER_CPUS ? Number(process.env.SERVER_CPUS) : undefined
/** A worker of bench/workers, on the server's CPUs where SERVER_CPUS says. */
const worker = (name: string) => workerCommand(name, { cpus: SERVER_CPUS })
/** The subject that serves audio made once: what HTTP costs on these cores with nothing else to do. */
const FLOOR = 'HTTP floor'
const NICES = [0, 10]
type Voice = ServedVoice
/** VOICES=espeak,kal16 measures only those. */
const VOICES: readonly Voice[] = process.env.VOICES ? SERVED_VOICES.filter((voice) => process.env.VOICES!.split(',').includes(voice.key)) : SERVED_VOICES


/** `svc-tts serve` (bench/workers/serve-cost-host.ts), its synthesis threads at `nice`, once it listens. */
function startServer(nice: number): Promise<Served> {
  return startServed(worker('serve-cost-host'), { cwd: root, env: { ...process.env, THREAD_NICE: String(nice) } })
}

/** The floor: a bare node:http server answering each body with its audio, made once (bench/workers/http-floor-host.ts). */
async function startFloor(): Promise<{ child: ChildProcess; port: number }> {
  const [command, ...args] = worker('http-floor-host')
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number }))
    child.once('exit', (code) => reject(new Error(`the floor server exited with ${code} before listening`)))
  })
  return { child, port }
}

/** "lowest-highest" of figures, to two places. */
const range = (values: readonly number[]) => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`

/** `seconds` of load from `clients` clients (SECONDS unless given). */
type Cell = (voice: Voice, clients: number, seconds?: number) => Promise<{ rate: number; requests: number }>

/** The in-process subject: this process's engine, or one in a process of its own on the server's CPUs; and that process, if any. */
async function inProcessSubject(): Promise<{ cell: Cell; child?: ChildProcess; close(): Promise<void> }> {
  if (!SERVER_CPUS) {
    const engine = await createEngine()
    return {
      cell: (voice, clients, seconds = SECONDS) => closedLoop(clients, seconds, streamedBytes(engine, requestOf(voice)), voice.sampleRate * 2),
      close: () => engine.close(),
    }
  }
  const [command, ...args] = worker('stream-loop-host')
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`the engine host exited with ${code}`))))
  return {
    child,
    cell: (voice, clients, seconds = SECONDS) => new Promise((resolve) => {
      child.once('message', (m) => resolve(m as { rate: number; requests: number }))
      child.send({ body: requestOf(voice), clients, seconds, bytesPerSecond: voice.sampleRate * 2 })
    }),
    close: async () => void child.send('stop'),
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  // Throughput: every cell once a pass, the three subjects of a cell back to back in an order that turns each pass.
  const local = await inProcessSubject()
  const servers = new Map<number, Served>()
  for (const nice of NICES) servers.set(nice, await startServer(nice))
  const floor = await startFloor()
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  const httpCell = (port: number): Cell => (voice, clients, seconds = SECONDS) => closedLoop(clients, seconds, overHttp(port, agent, voice), voice.sampleRate * 2)
  /** `pid`: a server's process, whose CPU is counted apart from this one's; `enginePid`: the in-process engine's own process, where it has one. */
  type Subject = { label: string; cell: Cell; pid?: number; enginePid?: number }
  const subjects: Subject[] = [
    { label: 'in-process', cell: local.cell, ...(local.child && { enginePid: local.child.pid! }) },
    ...NICES.map((nice) => ({ label: `HTTP nice ${nice}`, cell: httpCell(servers.get(nice)!.port), pid: servers.get(nice)!.child.pid! })),
    { label: FLOOR, cell: httpCell(floor.port), pid: floor.child.pid! },
  ]
  const figures = new Map<string, number[]>()
  /** The server's main-thread CPU per request, in ms, for each HTTP cell. */
  const mainCpu = new Map<string, number[]>()
  /** CPU per request, in ms, of every thread of this process (the engine in-process, else the client) and of the server's process. */
  const ownCpu = new Map<string, number[]>()
  const serverCpu = new Map<string, number[]>()
  const add = (into: Map<string, number[]>, key: string, value: number) => into.set(key, [...(into.get(key) ?? []), value])
  const cell = (voice: Voice, clients: number, label: string) => `${voice.name}|${clients}|${label}`
  try {
    for (const voice of VOICES) for (const subject of subjects) await subject.cell(voice, 4, WARMUP_SECONDS)
    for (let pass = 0; pass < PASSES; pass++) {
      for (const voice of VOICES) {
        for (const clients of CONCURRENCY) {
          for (let turn = 0; turn < subjects.length; turn++) {
            const subject = subjects[(turn + pass) % subjects.length]!
            const mainBefore = subject.pid === undefined ? 0 : mainThreadCpuMs(subject.pid)
            const serverBefore = subject.pid === undefined ? 0 : processCpuMs(subject.pid)
            const ownCpuNow = () => (subject.enginePid === undefined ? ownCpuMs() : processCpuMs(subject.enginePid))
            const ownBefore = ownCpuNow()
            const { rate, requests } = await subject.cell(voice, clients)
            const key = cell(voice, clients, subject.label)
            add(figures, key, rate)
            add(ownCpu, key, (ownCpuNow() - ownBefore) / requests)
            if (subject.pid !== undefined) {
              add(mainCpu, key, (mainThreadCpuMs(subject.pid) - mainBefore) / requests)
              add(serverCpu, key, (processCpuMs(subject.pid) - serverBefore) / requests)
            }
          }
        }
      }
    }
  } finally {
    // However the passes end, the servers go with them.
    agent.destroy()
    for (const served of servers.values()) served.child.kill('SIGTERM')
    floor.child.kill('SIGTERM')
    await local.close()
  }
  const loadAfterThroughput = loadavg()[0]!

  const rows: string[] = []
  const cpuRows: string[] = []
  const readings: string[] = []
  for (const voice of VOICES) {
    const floors: number[] = []
    const ceilings: number[] = []
    const extras: number[] = []
    for (const clients of CONCURRENCY) {
      const local = figures.get(cell(voice, clients, 'in-process'))!
      const http = NICES.map((nice) => figures.get(cell(voice, clients, `HTTP nice ${nice}`))!)
      const cpu = NICES.map((nice) => median(mainCpu.get(cell(voice, clients, `HTTP nice ${nice}`))!).toFixed(2))
      rows.push(`| ${voice.name} | ${clients} | ${spread(local)} | ${http.map((values) => `${spread(values)} | ${(median(values) / median(local)).toFixed(2)}`).join(' | ')} | ${cpu.join(' / ')} |`)
      const at = (label: string) => cell(voice, clients, label)
      const engineMs = median(ownCpu.get(at('in-process'))!)
      const served = (label: string) => ({ server: median(serverCpu.get(at(label))!), client: median(ownCpu.get(at(label))!) })
      const nice0 = served('HTTP nice 0')
      const bare = served(FLOOR)
      // With the client on cores of its own, only the floor's server side shares the engine's cores.
      const floorMs = SERVER_CPUS ? bare.server : bare.server + bare.client
      const ceiling = engineMs / (engineMs + floorMs)
      cpuRows.push(`| ${voice.name} | ${clients} | ${engineMs.toFixed(2)} | ${nice0.server.toFixed(2)} + ${nice0.client.toFixed(2)} | ${spread(figures.get(at(FLOOR))!)} | ${bare.server.toFixed(2)} + ${bare.client.toFixed(2)} | ${ceiling.toFixed(2)} |`)
      floors.push(floorMs)
      ceilings.push(ceiling)
      extras.push(nice0.server + nice0.client - engineMs)
    }
    readings.push(`${voice.name}: the floor ${range(floors)} ms a request, a ceiling of ${range(ceilings)}; svc-tts serve and its client ${range(extras)} ms over the engine in-process`)
  }
  const machine = SERVER_CPUS ? `the servers, the floor and the in-process engine on ${SERVER_CPUS} of ${cpus().length} CPUs (${cpus()[0]?.model ?? 'cpu'}), the client on the others` : `${cpus().length} cores shared with other work`
  const command = SERVER_CPUS ? `SERVER_CPUS=${SERVER_CPUS}${process.env.VOICES ? ` VOICES=${process.env.VOICES}` : ''} PASSES=${PASSES} SECONDS=${SECONDS} WARMUP_SECONDS=${WARMUP_SECONDS} taskset -c ${SERVER_CPUS}-${cpus().length - 1} node --import tsx bench/studies/server-cost.ts` : `node --import tsx bench/studies/server-cost.ts\` (PASSES=${PASSES} SECONDS=${SECONDS} WARMUP_SECONDS=${WARMUP_SECONDS}`
  const section = writeSection(SERVER_CPUS ? 'server-cost-pinned' : 'server-cost', `## Server cost${SERVER_CPUS ? `, the server on ${SERVER_CPUS} cores of its own` : ''}

Generated by \`${command}${SERVER_CPUS ? '`' : ')'}; ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${machine}, 1-minute load average ${loadBefore.toFixed(2)} at the start, ${loadAfterThroughput.toFixed(2)} after the throughput passes and ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows up in every figure).

Throughput: audio seconds made a second by N closed-loop clients, each sending its next request once the last one's audio is read, for ${SECONDS} s a cell, after ${WARMUP_SECONDS} s of load on each subject and voice: "${TEXT}", raw pcm_s16le at the voice's rate. In-process: \`engine.stream()\` in ${SERVER_CPUS ? 'a process of its own on those CPUs' : 'this process'} (synthesis threads at the default nice ${DEFAULT_THREAD_NICE}). HTTP: POST /text_to_speech/streaming on keep-alive node:http connections to \`svc-tts serve\` in its own process (a log line per request, read by this process as a log collector would), its synthesis threads at nice 0 or 10; this process is the client${SERVER_CPUS ? `, on CPUs of its own` : ` and shares the ${cpus().length} cores`}. ${PASSES} passes, each cell once a pass, the subjects of a cell back to back in an order that turns each pass. Median (p5-p95 over the passes; with ${PASSES} passes, about the lowest and highest); ratio = HTTP median / in-process median. The server's main-thread CPU a request (from /proc, median over the passes) is the figure the machine's other work inflates least. Over HTTP the same cores also run the client's side of every request (node:http parsing what the in-process figure never pays) and the server's event loop (HTTP parsing, the request's validation, planning, the writes and the log line); the second table says what that costs.

| synthesizer | clients | in-process, audio s/s | HTTP nice 0 | ratio | HTTP nice 10 | ratio | server main thread, CPU ms a request (nice 0 / 10) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

CPU a request, in the same cells (ms, median over the passes; from /proc for a server's process, every thread, and from \`process.cpuUsage()\` for this one): in-process, the engine's (its event loop and its synthesis threads); over HTTP, the server's process + this process as its client. The floor: a bare node:http server in its own process (bench/workers/http-floor-host.ts) that answers each request, once its body is read, with that request's audio in one write, made once and kept: no synthesis, validation, keys or log line, only what handing the same bytes to a node:http client over loopback costs both sides. Its audio seconds a second are what the cores give HTTP alone. Where the cores are the limit (both busy), a service that did the engine's work and nothing more than the floor's would make at most engine / (engine + floor) of the in-process rate: the last column, the ceiling any HTTP service has on these cores${SERVER_CPUS ? ' (the floor counted without its client, which runs on other cores)' : ' with its client beside it'}.

| synthesizer | clients | in-process, CPU ms a request | HTTP nice 0, server + client | floor, audio s/s | floor, server + client | ceiling of HTTP / in-process |
| --- | --- | --- | --- | --- | --- | --- |
${cpuRows.join('\n')}

Reading (C = ${CONCURRENCY.join(', ')}): ${readings.join('; ')}. What a service spends beyond the floor is its own work (parsing and checking the request, keys and limits, metrics, the log line, a write per part of the audio), and on cores its client shares, every ms of it comes off the rate.
`)
  process.stdout.write(section)
}

await main()
process.exit(0)
