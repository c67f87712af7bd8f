/**
 * Where the server's main thread spends its CPU: `svc-tts serve` on the first SERVER_CPUS CPUs
 * (default 1) under CLIENTS closed-loop HTTP clients (default 4, this process, on the other CPUs)
 * streaming one voice's audio, its main thread sampled by `perf` (on-CPU time only, so a thread
 * waiting on a lock or preempted by synthesis counts nothing) and V8's code mapped by its jitdump
 * (`--perf-prof`, `perf inject --jit`), which stays right when V8 moves or frees code. Each sample
 * is counted to a part of the work by its stack; with the main thread's CPU a request from /proc,
 * the shares become milliseconds a request. Writes its section of bench/RESULTS.md.
 *
 *   taskset -c 1 node --import tsx bench/studies/server-profile.ts      (VOICE=kal16 CLIENTS=4 SECONDS=8 SERVER_CPUS=1)
 *
 * taskset puts this process, the client, on CPUs other than the server's (on 16 CPUs with
 * SERVER_CPUS=2: taskset -c 2-15).
 *
 * VOICE is espeak, kal16 or slt. Needs `perf` (Debian's linux-perf) allowed to sample this user's
 * threads (kernel.perf_event_paranoid 2 or lower).
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent } from 'node:http'
import { cpus, tmpdir } from 'node:os'
import path from 'node:path'
import { closedLoop } from '../harness/closed-loop.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { writeSection } from '../harness/results.js'
import { overHttp, SERVED_VOICES, startServed, TEXT, type Served } from '../harness/served-voices.js'
import { workerCommand } from '../harness/worker-command.js'

const CLIENTS = Number(process.env.CLIENTS ?? 4)
const SECONDS = Number(process.env.SECONDS ?? 8)
const SERVER_CPUS = Number(process.env.SERVER_CPUS ?? 1)
const voiceKey = process.env.VOICE ?? 'kal16'
const voice = SERVED_VOICES.find((v) => v.key === voiceKey) ?? (() => {
  throw new Error(`VOICE is one of ${SERVED_VOICES.map((v) => v.key).join(', ')}`)
})()

/** A part of the work, known by the stack of a sample (leaf first); the first rule that matches names it. */
const PARTS: { part: string; matches: (frames: readonly string[]) => boolean }[] = [
  { part: 'garbage collection', matches: (f) => f.slice(0, 12).some((s) => /Heap::|Scavenge|MarkCompact|IncrementalMarking|Sweeper|GCTracer/.test(s)) },
  { part: 'socket writes in the kernel (TCP over loopback)', matches: (f) => f.some((s) => /tcp_sendmsg|sock_sendmsg|do_writev|__x64_sys_write\b/.test(s)) },
  { part: 'socket reads and polling in the kernel', matches: (f) => f.some((s) => /tcp_recvmsg|sock_recvmsg|do_epoll_wait|__x64_sys_read\b/.test(s)) },
]

/** The leaf-most JavaScript frame's part: the service's files, the engine and text layer (what in-process runs too), Node's modules, the dependencies. */
function jsPart(frame: string): string {
  const own = /lib\/(server|engine|text|voices|validation|realtime|neural|audio)\//.exec(frame)
  if (own) return own[1] === 'server' || own[1] === 'realtime' ? `svc-tts service: ${frame.replace(/.*lib\//, 'lib/').replace(/:.*$/, '')}` : 'svc-tts engine and text layer (as in-process)'
  if (/lib\/(native|errors)\.[jt]s/.test(frame)) return 'svc-tts engine and text layer (as in-process)'
  const dependency = /node_modules\/(@[^/]+\/[^/]+|[^/]+)\//.exec(frame)
  if (dependency) return `dependency: ${dependency[1]}`
  const node = /node:(internal\/)?([\w/]+)/.exec(frame)
  if (!node) return 'other JavaScript'
  const module = node[2]!
  if (/^(_http|http|net|stream_base|streams\/|stream)/.test(module)) return "Node: HTTP, sockets and streams"
  if (/async_hooks/.test(module)) return 'Node: async_hooks (AsyncLocalStorage)'
  if (/abort_controller|event_target/.test(module)) return 'Node: AbortSignal and EventTarget'
  if (/process\/task_queues|timers/.test(module)) return 'Node: ticks, microtasks and timers'
  if (/events/.test(module)) return 'Node: EventEmitter'
  return `Node: ${module.split('/')[0]}`
}

function partOf(frames: readonly string[]): string {
  for (const { part, matches } of PARTS) if (matches(frames)) return part
  const js = frames.find((frame) => frame.startsWith('JS:'))
  if (js) return jsPart(js)
  return frames.some((frame) => /uv_|uv__/.test(frame)) ? 'the event loop and native callbacks (no JavaScript)' : 'native code (allocation, copies, the addon, V8\'s runtime)'
}

/** The samples of `perf script`'s output, each a stack of frame names, leaf first. */
function samplesOf(script: string): string[][] {
  const samples: string[][] = []
  for (const block of script.split(/\n\s*\n/)) {
    const frames = block.split('\n').slice(1)
      .map((line) => line.trim().replace(/^[0-9a-f]+ /, '').replace(/\s*\([^)]*\)$/, '').replace(/\+0x[0-9a-f]+$/, '').replace(/file:\/\/\S*?\/(lib|node_modules)\//, '$1/'))
      .filter(Boolean)
    if (frames.length > 0) samples.push(frames)
  }
  return samples
}

/** `svc-tts serve` with V8's jitdump on, run in `dir`, where the jitdump goes (tsx, where this runs under it, by its full path). */
function startServer(dir: string): Promise<Served> {
  const tsx = import.meta.resolve('tsx')
  const command = workerCommand('serve-cost-host', { cpus: SERVER_CPUS, nodeOptions: ['--perf-prof', '--interpreted-frames-native-stack'] })
    .map((arg, i, all) => (arg === 'tsx' && all[i - 1] === '--import' ? tsx : arg))
  return startServed(command, { cwd: dir, env: { ...process.env, THREAD_NICE: '10' } })
}

async function main(): Promise<void> {
  if (cpus().length <= SERVER_CPUS) throw new Error(`SERVER_CPUS=${SERVER_CPUS} leaves no CPU for the client`)
  const started = Date.now()
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-server-profile-'))
  const server = await startServer(dir)
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  const once = overHttp(server.port, agent, voice)
  let measured: { rate: number; requests: number; mainMs: number }
  let samples: string[][]
  try {
    await closedLoop(CLIENTS, 2, once, voice.sampleRate * 2)  // warm-up: the code the profile sees is optimised
    const pid = server.child.pid!
    const perfData = path.join(dir, 'perf.data')
    const perf = spawn('perf', ['record', '-k', '1', '-F', '2000', '-g', '-t', String(pid), '-o', perfData], { cwd: dir, stdio: 'ignore' })
    await new Promise((resolve) => setTimeout(resolve, 300))  // perf attached
    const mainBefore = mainThreadCpuMs(pid)
    const loop = await closedLoop(CLIENTS, SECONDS, once, voice.sampleRate * 2)
    measured = { ...loop, mainMs: (mainThreadCpuMs(pid) - mainBefore) / loop.requests }
    perf.kill('SIGINT')
    await new Promise((resolve) => perf.once('exit', resolve))
    execFileSync('perf', ['inject', '--jit', '-i', perfData, '-o', `${perfData}.jit`], { cwd: dir, stdio: 'ignore' })
    samples = samplesOf(execFileSync('perf', ['script', '-i', `${perfData}.jit`], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }))
  } finally {
    agent.destroy()
    server.child.kill('SIGTERM')
    await new Promise((resolve) => server.child.once('exit', resolve))
    rmSync(dir, { recursive: true, force: true })
  }
  if (samples.length === 0) throw new Error('perf recorded no samples of the main thread')

  const parts = new Map<string, number>()
  const functions = new Map<string, number>()
  for (const frames of samples) {
    const part = partOf(frames)
    parts.set(part, (parts.get(part) ?? 0) + 1)
    const js = frames.find((frame) => frame.startsWith('JS:'))
    if (js) {
      const name = js.replace(/^JS:[*~^]?/, '')
      functions.set(name, (functions.get(name) ?? 0) + 1)
    }
  }
  const share = (count: number) => count / samples.length
  const row = ([name, count]: [string, number]) => `| ${name} | ${(100 * share(count)).toFixed(1)} % | ${(share(count) * measured.mainMs).toFixed(3)} |`
  const byCount = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1])
  const section = `## Server main thread, where its time goes

Generated by \`VOICE=${voiceKey} CLIENTS=${CLIENTS} SECONDS=${SECONDS} SERVER_CPUS=${SERVER_CPUS} taskset -c ${SERVER_CPUS === cpus().length - 1 ? SERVER_CPUS : `${SERVER_CPUS}-${cpus().length - 1}`} node --import tsx bench/studies/server-profile.ts\`; ${new Date().toISOString()}, ${Math.round((Date.now() - started) / 1000)} s, ${cpus().length} CPUs: \`svc-tts serve\` on the first ${SERVER_CPUS}, the client (run with \`taskset\`) on the others.

${CLIENTS} closed-loop clients stream "${TEXT}" in ${voice.name}, raw pcm_s16le, over keep-alive node:http connections, for ${SECONDS} s after a 2 s warm-up: ${measured.requests} requests, ${Math.round(measured.rate)} audio seconds a second; the server's main thread used ${measured.mainMs.toFixed(3)} ms of CPU a request (from /proc; V8's jitdump and the sampling add to it, so the figure is above server-cost.ts's). \`perf\` sampled that thread on-CPU at 2 kHz (${samples.length} samples), with V8's code mapped by its jitdump. A sample counts to the first of: garbage collection, the kernel writing or reading a socket, else its leaf-most JavaScript frame's file or Node module, else native code. ms a request = share × the main thread's CPU a request.

| part | share of the main thread's CPU | ms a request |
| --- | --- | --- |
${byCount(parts).map(row).join('\n')}

The JavaScript functions most often the leaf-most JavaScript frame (their own time and the native code they call):

| function | share | ms a request |
| --- | --- | --- |
${byCount(functions).slice(0, 15).map(row).join('\n')}
`
  process.stdout.write(writeSection('server-profile', section))
}

await main()
