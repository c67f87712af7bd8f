/**
 * The HTTP service of this checkout against another commit's, in the same sitting: both `svc-tts
 * serve` (bench/workers/serve-cost-host.ts, synthesis threads at nice 0) run at once, and C
 * closed-loop clients stream the served voices' request (bench/harness/served-voices.ts) to each in
 * turn, PASSES times, the order turned each pass. For each cell it prints the audio seconds a
 * second, the server's main-thread CPU a request (from /proc) and this process's, the client's, of
 * every pass, side by side; with SYSCALLS=1, then the socket writes and the event loop's wakes a
 * request of each server's main thread (one more cell each at 2 clients, counted by strace). It
 * writes no section of RESULTS.md: it is for deciding whether a change to the service's hot path
 * holds up (bench/RESULTS.md, "Measurements behind design choices").
 *
 *   BENCH_BASELINE_ROOT=<checkout> [VOICES=kal16,espeak] [CLIENTS=2,4] [PASSES=4] [SECONDS=2] [WARMUP_SECONDS=15] [SYSCALLS=1] node --import tsx bench/studies/http-baseline.ts
 *
 * The checkout has its node_modules and build/ linked from this one.
 */
import { Agent } from 'node:http'
import path from 'node:path'
import { closedLoop } from '../harness/closed-loop.js'
import { mainThreadCpuMs, ownCpuMs } from '../harness/cpu-time.js'
import { overHttp, SERVED_VOICES, startServed, type Served } from '../harness/served-voices.js'
import { countSyscalls } from '../harness/syscall-count.js'
import { workerCommand } from '../harness/worker-command.js'

const baselineRoot = process.env.BENCH_BASELINE_ROOT
if (!baselineRoot) throw new Error('BENCH_BASELINE_ROOT names the checkout to compare with')
const root = path.resolve(import.meta.dirname, '../..')
const VOICES = SERVED_VOICES.filter((voice) => (process.env.VOICES ?? 'kal16,espeak').split(',').includes(voice.key))
const CLIENTS = (process.env.CLIENTS ?? '2,4').split(',').map(Number)
const PASSES = Number(process.env.PASSES ?? 4)
const SECONDS = Number(process.env.SECONDS ?? 2)
/** Load before the passes: V8 optimizes a function once it has run enough, and a request runs many once each (after 2 s of load about half the server's JavaScript samples were of unoptimized code, after 25 s under a tenth). */
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 15)
const BUILDS = [
  { label: 'baseline', root: baselineRoot },
  { label: 'this checkout', root },
]

const rows: string[] = []
const syscallRows: string[] = []
for (const voice of VOICES) {
  const servers: Served[] = []
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  try {
    for (const build of BUILDS) {
      const served = await startServed(workerCommand('serve-cost-host', { root: build.root }), { cwd: build.root, env: { ...process.env, THREAD_NICE: '0' } })
      served.child.stdout!.resume()  // its log lines, read and dropped
      servers.push(served)
    }
    for (const served of servers) await closedLoop(4, WARMUP_SECONDS, overHttp(served.port, agent, voice), voice.sampleRate * 2)
    const cells = new Map<string, string[]>()
    for (let pass = 0; pass < PASSES; pass++) {
      for (const clients of CLIENTS) {
        const order = pass % 2 === 0 ? [0, 1] : [1, 0]
        for (const index of order) {
          const served = servers[index]!
          const cpuBefore = mainThreadCpuMs(served.child.pid!)
          const clientBefore = ownCpuMs()
          const { rate, requests } = await closedLoop(clients, SECONDS, overHttp(served.port, agent, voice), voice.sampleRate * 2)
          const cpu = (mainThreadCpuMs(served.child.pid!) - cpuBefore) / requests
          const clientCpu = (ownCpuMs() - clientBefore) / requests
          const key = `| ${voice.name} | ${clients} | ${BUILDS[index]!.label} |`
          cells.set(key, [...(cells.get(key) ?? []), `${rate.toFixed(0)} / ${cpu.toFixed(2)} / ${clientCpu.toFixed(2)}`])
        }
      }
    }
    for (const [key, passes] of cells) rows.push(`${key} ${passes.join(', ')} |`)
    if (process.env.SYSCALLS) {
      for (const [index, served] of servers.entries()) {
        const pid = served.child.pid!
        const { counts, result } = await countSyscalls(pid, ['writev', 'write', 'epoll_pwait', 'epoll_wait'], () => closedLoop(2, SECONDS, overHttp(served.port, agent, voice), voice.sampleRate * 2))
        const perRequest = (...calls: string[]) => (calls.reduce((sum, call) => sum + (counts.get(call) ?? 0), 0) / result.requests).toFixed(2)
        syscallRows.push(`| ${voice.name} | ${BUILDS[index]!.label} | ${result.requests} | ${perRequest('writev')} | ${perRequest('write')} | ${perRequest('epoll_pwait', 'epoll_wait')} |`)
      }
    }
  } finally {
    for (const served of servers) served.child.kill()
    agent.destroy()
  }
}
process.stdout.write(`| synthesizer | clients | build | each pass: audio s/s / server main-thread CPU ms a request / client CPU ms a request |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`)
if (syscallRows.length > 0) {
  process.stdout.write(`\n| synthesizer | build | requests (2 clients, under strace) | writev a request (the responses) | write a request (log lines, wake-ups) | event-loop wakes a request |\n| --- | --- | --- | --- | --- | --- |\n${syscallRows.join('\n')}\n`)
}
