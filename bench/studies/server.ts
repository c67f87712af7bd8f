/**
 * Server figures, side by side with the in-process ones of the same run: first audio byte over
 * HTTP streaming and over the WebSocket (loopback) against engine.speak() in-process, and how many
 * concurrent WebSocket contexts, fed text faster than it is spoken and played in real time, stay
 * gapless with the server's event-loop lag p99 under 20 ms. Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/server.ts
 *
 * STAGGER_MS (default 1500) spreads the contexts' starts; HOST_PROF=1 writes the server process's
 * CPU profile to /tmp/wsprof (node --cpu-prof) for finding where its main thread's time goes.
 * SERVER_CPUS=N pins the server and the raw limit's programs to the first N CPUs (`taskset`), so
 * that on a larger machine the client (this process, run on the other CPUs) has cores of its own;
 * CONTEXTS (e.g. 800,1600,2400) and SLT_CONTEXTS set the sweeps of concurrent contexts.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { createEngine, PREDEFINED_VOICES } from '../../lib/index.js'
import { espeakPrograms } from '../harness/core-runs.js'
import { httpFirstByte } from '../harness/http-first-byte.js'
import { mainThreadCpuMs } from '../harness/cpu-time.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'
import { workerCommand } from '../harness/worker-command.js'

const BENCH_KEY = 'sk_bench_0000000000000000000000000000000000000000'
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const PARAGRAPH = 'It is easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch. The box was thrown beside the parked truck. '
const RUNS = Number(process.env.RUNS ?? 40)
const WARMUP = 5
const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id
const ESPEAK_MODEL = 'svc_flash_v1.5'
const SERVER_CPUS = process.env.SERVER_CPUS ? Number(process.env.SERVER_CPUS) : undefined
/** The cores the server and the raw limit run on. */
const CORES = SERVER_CPUS ?? cpus().length
const sweep = (variable: string, otherwise: number[]) => (process.env[variable] ? process.env[variable].split(',').map(Number) : otherwise)
const ESPEAK_CONTEXTS = sweep('CONTEXTS', [50, 100, 200, 400, 800, 1200, 1600])
const SLT_CONTEXTS = sweep('SLT_CONTEXTS', [10, 25, 50, 75])
const SUBJECTS = [
  { name: 'espeak-ng en-us+f3 (Sarah, svc_flash_v1.5)', model_id: ESPEAK_MODEL, contexts: ESPEAK_CONTEXTS },
  { name: 'flite slt (Sarah, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', contexts: SLT_CONTEXTS },
]
const WORD_EVERY_MS = 150
/** Contexts start in STARTS groups spread over STAGGER_MS, as independent users would (0: all at once, every sentence of every context due together). */
const STAGGER_MS = Number(process.env.STAGGER_MS ?? 1500)
const STARTS = STAGGER_MS > 0 ? 10 : 1
const FORMAT = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 } as const
const BYTES_PER_SECOND = 22050 * 2

type Host = { port: number; pid: number; ask<T>(message: string): Promise<T>; send(message: string): void }

async function startHost(): Promise<Host> {
  const [command, ...args] = workerCommand('server-host', { cpus: SERVER_CPUS, ...(process.env.HOST_PROF && { nodeOptions: ['--cpu-prof', '--cpu-prof-dir=/tmp/wsprof'] }) })
  const child = spawn(command, args, { env: { ...process.env, BENCH_KEY }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })))
  return {
    port,
    pid: child.pid!,
    send: (message) => child.send(message),
    ask: <T>(message: string) => new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T))
      child.send(message)
    }),
  }
}

const streamingFirstByte = (port: number, body: string) => httpFirstByte({ port, path: '/text_to_speech/streaming', body, headers: { 'x-api-key': BENCH_KEY } })

async function openSocket(port: number, model_id: string): Promise<WebSocket> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/text_to_speech/websocket/ws?api_key=${BENCH_KEY}&version=v1`)
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)))
  socket.send(JSON.stringify({ model_id, voice: { mode: 'id', id: sarah }, output_format: FORMAT }))
  return socket
}

/** From sending a context's text to its first audioOutput. */
async function wsFirstAudio(socket: WebSocket, id: string): Promise<number> {
  const started = performance.now()
  let first = 0
  await new Promise<void>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const event = JSON.parse(String(data)) as { context_id: string; audio: string; final: boolean }
      if (event.context_id !== id) return
      if (!first && event.audio) first = performance.now() - started
      if (event.final && event.audio === '' && first) {
        socket.off('message', onMessage)
        resolve()
      }
    }
    socket.on('message', onMessage)
    socket.send(JSON.stringify({ context_id: id, transcript: `${TEXT} ` }))
    socket.send(JSON.stringify({ context_id: id, close_context: true, transcript: '' }))
  })
  return first
}

const AUDIO_FIELD = Buffer.from('"audio":"')

/**
 * A server message, its audio's length read off the base64 and the rest parsed: the client shares
 * the server's cores, and decoding every chunk's text would cost them more than the server's
 * own serialising of it.
 */
function readAudioOutput(data: Buffer): { event: { context_id: string; final?: boolean; error_code?: string; message?: string }; audioBytes: number } {
  const field = data.indexOf(AUDIO_FIELD)
  if (field < 0) return { event: JSON.parse(data.toString()), audioBytes: 0 }
  const from = field + AUDIO_FIELD.length
  const to = data.indexOf(0x22, from)  // base64 has no quote or escape
  const padding = to - from < 4 ? 0 : (data[to - 1] === 0x3d ? 1 : 0) + (data[to - 2] === 0x3d ? 1 : 0)
  return { event: JSON.parse(data.toString('utf8', 0, from) + data.toString('utf8', to)), audioBytes: ((to - from) / 4) * 3 - padding }
}

/**
 * `count` contexts, 25 to a socket, fed PARAGRAPH a word every 150 ms (about twice the pace it
 * is spoken at) and played in real time from their first chunk: the worst gap any context hears.
 */
async function concurrentContexts(port: number, model_id: string, count: number): Promise<{ gapless: number; worstGapMs: number; audioSeconds: number }> {
  // 25 contexts a socket send a message each every 150 ms, 167 a second: under a connection's default
  // rate limit (200 a second, docs/errors-and-limits.md), as a client multiplexing its own users would.
  const perSocket = 25
  const sockets = await Promise.all(Array.from({ length: Math.ceil(count / perSocket) }, () => openSocket(port, model_id)))
  const words = PARAGRAPH.trim().split(' ')
  const contexts = Array.from({ length: count }, (_, i) => ({ id: `c${i}`, socket: sockets[Math.floor(i / perSocket)]!, clock: 0, worstGapMs: 0, done: false }))
  const byId = new Map(contexts.map((c) => [c.id, c]))
  let audioSeconds = 0
  const finished = new Promise<void>((resolve, reject) => {
    let left = count
    for (const socket of sockets) {
      // A refusal or a closed socket ends the run: it would otherwise wait for finals that never come.
      socket.on('close', () => left > 0 && reject(new Error(`a socket closed with ${left} contexts unfinished`)))
      socket.on('message', (data: Buffer) => {
        const now = performance.now()
        const { event, audioBytes } = readAudioOutput(data)
        if (event.error_code) return reject(new Error(`${event.error_code}: ${event.message}`))
        const context = byId.get(event.context_id)
        if (!context) return
        if (audioBytes > 0) {
          const seconds = audioBytes / BYTES_PER_SECOND
          audioSeconds += seconds
          if (context.clock) context.worstGapMs = Math.max(context.worstGapMs, now - context.clock)
          context.clock = Math.max(context.clock, now) + seconds * 1000
        } else if (event.final && !context.done && context.clock) {
          context.done = true
          if (--left === 0) resolve()
        }
      })
    }
  })
  let failed = false
  finished.catch(() => (failed = true))  // seen at the await below; the sending stops
  const feed = async (group: typeof contexts, delayMs: number) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    for (const [index, word] of words.entries()) {
      if (failed) return
      for (const context of group) context.socket.send(JSON.stringify({ context_id: context.id, transcript: `${word} ` }))
      if (index < words.length - 1) await new Promise((resolve) => setTimeout(resolve, WORD_EVERY_MS))
    }
    for (const context of group) context.socket.send(JSON.stringify({ context_id: context.id, close_context: true, transcript: '' }))
  }
  await Promise.all(Array.from({ length: STARTS }, (_, start) => feed(contexts.filter((_, i) => i % STARTS === start), (start * STAGGER_MS) / STARTS)))
  try {
    await finished
  } finally {
    for (const socket of sockets) socket.removeAllListeners('close').close()
  }
  const worstGapMs = Math.max(...contexts.map((c) => c.worstGapMs))
  return { gapless: contexts.filter((c) => c.worstGapMs <= 50).length, worstGapMs, audioSeconds }
}

/**
 * What the main thread's cost per audio second allows: synthesis takes cores / rawLimit of a core
 * an audio second and the main thread m ms, so C cores carry at most 1 / (1 + m·rawLimit / (1000·C))
 * of the limit, and one event loop at most 1000 / m contexts whatever the cores.
 */
function ceiling(m: number, rawLimit: number): string {
  if (!Number.isFinite(m)) return ''
  const cores = CORES
  return `Reading: at the most contexts that passed, the server's main thread spent ${m.toFixed(2)} ms of CPU an audio second, and espeak-ng at least ${((1000 * cores) / rawLimit).toFixed(2)} ms (the program's own cost, from the raw limit). So with no client on its cores, ${cores} cores would carry at most ${(1 / (1 + (m * rawLimit) / (1000 * cores))).toFixed(2)} of the real-time limit, and one event loop about ${Math.round(1000 / m)} contexts however many cores there are (a second process adds another).`
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  // The cores' real-time limit for espeak-ng: the audio seconds a second of one `espeak-ng -w` a core,
  // so how many contexts at most the machine could speak at once, each heard in real time.
  const programDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  const programPasses: number[] = []
  for (let pass = 0; pass < 3; pass++) programPasses.push((await espeakPrograms(programDir, CORES, { ...(SERVER_CPUS && { cpus: SERVER_CPUS }) })).audioPerSecond)
  rmSync(programDir, { recursive: true, force: true })
  const rawLimit = median(programPasses)
  const engine = await createEngine()
  const host = await startHost()
  const firstAudio: string[] = []
  let mainMsPerAudioSecond = NaN
  const concurrency: string[] = []
  for (const subject of SUBJECTS) {
    const body = JSON.stringify({ model_id: subject.model_id, transcript: TEXT, voice: { mode: 'id', id: sarah }, output_format: FORMAT })
    const inProcess: number[] = []
    const http: number[] = []
    const ws: number[] = []
    const socket = await openSocket(host.port, subject.model_id)
    for (let run = 0; run < WARMUP + RUNS; run++) {
      const t0 = performance.now()
      const iterator = engine.speak(JSON.parse(body))[Symbol.asyncIterator]()
      await iterator.next()
      const local = performance.now() - t0
      await iterator.return(undefined)
      const overHttp = await streamingFirstByte(host.port, body)
      const overWs = await wsFirstAudio(socket, `r${run}`)
      if (run >= WARMUP) (inProcess.push(local), http.push(overHttp), ws.push(overWs))
    }
    socket.close()
    firstAudio.push(
      `| ${subject.name} | ${fmt(median(inProcess))} ms | ${fmt(quantile(inProcess, 0.95))} ms | ${fmt(median(http))} ms | ${fmt(quantile(http, 0.95))} ms | ${fmt(median(ws))} ms | ${fmt(quantile(ws, 0.95))} ms | ${fmt(median(http) - median(inProcess))} ms |`,
    )
    /** The most contexts all gapless with the lag bound held, and the most all gapless whatever the lag. */
    let best = 0
    let bestGapless = 0
    for (const count of subject.contexts) {
      host.send('reset')
      const cpuBefore = mainThreadCpuMs(host.pid)
      const runStarted = performance.now()
      const run = await concurrentContexts(host.port, subject.model_id, count).catch((error: Error) => error)
      const mainCpuMs = mainThreadCpuMs(host.pid) - cpuBefore
      const busy = (mainCpuMs / (performance.now() - runStarted)).toFixed(2)
      const lag = await host.ask<{ p99Ms: number; maxMs: number }>('lag')
      if (run instanceof Error) {
        concurrency.push(`| ${subject.name} | ${count} | ${run.message} | | ${fmt(lag.p99Ms)} ms | ${fmt(lag.maxMs)} ms | ${busy} | | no |`)
        break
      }
      const gapless = run.gapless === count
      const ok = gapless && lag.p99Ms < 20
      if (ok) best = count
      if (gapless) bestGapless = count
      const perAudioSecond = mainCpuMs / run.audioSeconds
      if (ok && subject.model_id === ESPEAK_MODEL) mainMsPerAudioSecond = perAudioSecond
      concurrency.push(`| ${subject.name} | ${count} | ${run.gapless} | ${fmt(run.worstGapMs)} ms | ${fmt(lag.p99Ms)} ms | ${fmt(lag.maxMs)} ms | ${busy} | ${perAudioSecond.toFixed(2)} | ${ok ? 'yes' : 'no'} |`)
      if (!gapless && count > best * 2) break  // well past the last pass: stop
    }
    const ofLimit = (n: number) => (subject.model_id === ESPEAK_MODEL ? ` (${(n / rawLimit).toFixed(2)} of the real-time limit)` : '')
    concurrency.push(`| ${subject.name}: most contexts gapless with lag p99 < 20 ms | **${best}**${ofLimit(best)} | | | | | | | |`)
    concurrency.push(`| ${subject.name}: most contexts gapless | **${bestGapless}**${ofLimit(bestGapless)} | | | | | | | |`)
  }
  host.send('stop')
  await engine.close()

  const machine = SERVER_CPUS ? `the server on ${SERVER_CPUS} of ${cpus().length} CPUs (${cpus()[0]?.model ?? 'cpu'}), the client on the others` : `${cpus().length} cores`
  const section = writeSection(SERVER_CPUS ? 'server-pinned' : 'server', `## Server${SERVER_CPUS ? `, its own ${SERVER_CPUS} cores` : ''}

Generated by \`${SERVER_CPUS ? `SERVER_CPUS=${SERVER_CPUS} CONTEXTS=${ESPEAK_CONTEXTS.join(',')} SLT_CONTEXTS=${SLT_CONTEXTS.join(',')} taskset -c ${SERVER_CPUS}-${cpus().length - 1} ` : ''}node --import tsx bench/studies/server.ts\`; ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${machine}, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows up in every figure).

Method: the standalone server (\`svc-tts serve\`'s default) runs in its own process on 127.0.0.1; the client is this process. Text: "${TEXT}", raw pcm_s16le at 22.05 kHz, voice Sarah. In-process first audio is \`engine.speak()\` to its first chunk; HTTP first byte is a node:http POST /text_to_speech/streaming to its first body byte (new connection each time); WebSocket first audio is sending a context's text (initializeContext, then close_context) on an open, initialised connection to its first audioOutput. ${RUNS} runs after ${WARMUP} warm-up runs, interleaved. Server cost = HTTP first byte median minus in-process median.

| synthesizer | in-process first audio, median | p95 | HTTP streaming first byte, median | p95 | WebSocket first audio, median | p95 | server cost (HTTP - in-process) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${firstAudio.join('\n')}

Concurrent contexts: N contexts (25 per socket, under a connection's default limit of 200 messages a second) each get the same ${PARAGRAPH.trim().split(' ').length}-word paragraph a word per message, a word every ${WORD_EVERY_MS} ms (about twice the pace it is spoken at), then close; ${STARTS > 1 ? `they start in ${STARTS} groups spread over ${STAGGER_MS} ms, as independent users would (\`STAGGER_MS=0\`: all at once)` : 'all start at once'}. Each context's audio is "played" in real time from its first chunk: a gap is a chunk arriving after the previous one has finished playing. Gapless = no gap over 50 ms. Lag = the server process's event-loop delay (monitorEventLoopDelay) during the run. Main thread busy = the server's main-thread CPU time (/proc) over the run's wall time (1.00: a whole core); its CPU ms an audio second = that CPU time over the seconds of audio the contexts received. The client reads each audio message's length off its base64 without decoding it, so that its share of the cores stays small. N grows while every context stays gapless, and stops at the first run that leaves one with a gap past twice the last passing N; a run passes when every context is gapless with lag p99 under 20 ms. The cores' real-time limit: ${CORES} \`espeak-ng -w\` processes (one a core${SERVER_CPUS ? ", on the server's CPUs" : ''}, the Harvard sentences ten times over, en-us+f3) make ${rawLimit.toFixed(0)} audio seconds a second (median of ${programPasses.length} passes, ${programPasses.map((v) => v.toFixed(0)).join(', ')}), so at most about ${rawLimit.toFixed(0)} contexts can be heard in real time at once; ${SERVER_CPUS ? "the client's side of every context runs on the other CPUs" : "the client's side of every context runs on the same cores"}.

| synthesizer | contexts | gapless contexts | worst gap | server event-loop lag p99 | max | server main thread busy | its CPU ms an audio second | pass |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${concurrency.join('\n')}

${ceiling(mainMsPerAudioSecond, rawLimit)}
`)
  process.stdout.write(section)
}

await main()
