/**
 * Server figures, side by side with the in-process ones of the same run: first audio byte over
 * HTTP streaming and over the WebSocket (loopback) against engine.speak() in-process, and how many
 * concurrent WebSocket contexts, fed text faster than it is spoken and played in real time, stay
 * gapless with the server's event-loop lag p99 under 20 ms. Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/server.ts
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { createEngine, PREDEFINED_VOICES } from '../../lib/index.js'
import { espeakPrograms } from '../harness/espeak-runs.js'
import { httpFirstByte } from '../harness/http-first-byte.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'

const BENCH_KEY = 'sk_bench_0000000000000000000000000000000000000000'
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const PARAGRAPH = 'It is easy to tell the depth of a well. These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch. The box was thrown beside the parked truck. '
const RUNS = Number(process.env.RUNS ?? 40)
const WARMUP = 5
const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id
const ESPEAK_MODEL = 'svc_flash_v1.5'
const SUBJECTS = [
  { name: 'espeak-ng en-us+f3 (Sarah, svc_flash_v1.5)', model_id: ESPEAK_MODEL, contexts: [50, 100, 200, 400, 800, 1200, 1600] },
  { name: 'flite slt (Sarah, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', contexts: [10, 25, 50, 75] },
]
const FORMAT = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 } as const
const BYTES_PER_SECOND = 22050 * 2

type Host = { port: number; ask<T>(message: string): Promise<T>; send(message: string): void }

async function startHost(): Promise<Host> {
  const child = fork(path.join(import.meta.dirname, '../workers/server-host.ts'), { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_KEY }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })))
  return {
    port,
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

/**
 * `count` contexts on one socket each, fed PARAGRAPH a word every 150 ms (about twice the pace it
 * is spoken at) and played in real time from their first chunk: the worst gap any context hears.
 */
async function concurrentContexts(port: number, model_id: string, count: number): Promise<{ gapless: number; worstGapMs: number }> {
  // 25 contexts a socket send a message each every 150 ms, 167 a second: under a connection's default
  // rate limit (200 a second, docs/errors-and-limits.md), as a client multiplexing its own users would.
  const perSocket = 25
  const sockets = await Promise.all(Array.from({ length: Math.ceil(count / perSocket) }, () => openSocket(port, model_id)))
  const words = PARAGRAPH.trim().split(' ')
  const contexts = Array.from({ length: count }, (_, i) => ({ id: `c${i}`, socket: sockets[Math.floor(i / perSocket)]!, clock: 0, worstGapMs: 0, done: false }))
  const byId = new Map(contexts.map((c) => [c.id, c]))
  const finished = new Promise<void>((resolve, reject) => {
    let left = count
    for (const socket of sockets) {
      // A refusal or a closed socket ends the run: it would otherwise wait for finals that never come.
      socket.on('close', () => left > 0 && reject(new Error(`a socket closed with ${left} contexts unfinished`)))
      socket.on('message', (data) => {
        const now = performance.now()
        const event = JSON.parse(String(data)) as { context_id: string; audio?: string; final?: boolean; error_code?: string; message?: string }
        if (event.error_code) return reject(new Error(`${event.error_code}: ${event.message}`))
        const context = byId.get(event.context_id)
        if (!context) return
        if (event.audio) {
          const seconds = Buffer.byteLength(event.audio, 'base64') / BYTES_PER_SECOND
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
  for (const [index, word] of words.entries()) {
    if (failed) break
    for (const context of contexts) context.socket.send(JSON.stringify({ context_id: context.id, transcript: `${word} ` }))
    if (index < words.length - 1) await new Promise((resolve) => setTimeout(resolve, 150))
  }
  if (!failed) for (const context of contexts) context.socket.send(JSON.stringify({ context_id: context.id, close_context: true, transcript: '' }))
  try {
    await finished
  } finally {
    for (const socket of sockets) socket.removeAllListeners('close').close()
  }
  const worstGapMs = Math.max(...contexts.map((c) => c.worstGapMs))
  return { gapless: contexts.filter((c) => c.worstGapMs <= 50).length, worstGapMs }
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  // The cores' real-time limit for espeak-ng: the audio seconds a second of one `espeak-ng -w` a core,
  // so how many contexts at most the machine could speak at once, each heard in real time.
  const programDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  const programPasses: number[] = []
  for (let pass = 0; pass < 3; pass++) programPasses.push((await espeakPrograms(programDir, cpus().length)).audioPerSecond)
  rmSync(programDir, { recursive: true, force: true })
  const rawLimit = median(programPasses)
  const engine = await createEngine()
  const host = await startHost()
  const firstAudio: string[] = []
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
    let best = 0
    for (const count of subject.contexts) {
      host.send('reset')
      const run = await concurrentContexts(host.port, subject.model_id, count).catch((error: Error) => error)
      const lag = await host.ask<{ p99Ms: number; maxMs: number }>('lag')
      if (run instanceof Error) {
        concurrency.push(`| ${subject.name} | ${count} | ${run.message} | | ${fmt(lag.p99Ms)} ms | ${fmt(lag.maxMs)} ms | no |`)
        break
      }
      const ok = run.gapless === count && lag.p99Ms < 20
      if (ok) best = count
      concurrency.push(`| ${subject.name} | ${count} | ${run.gapless} | ${fmt(run.worstGapMs)} ms | ${fmt(lag.p99Ms)} ms | ${fmt(lag.maxMs)} ms | ${ok ? 'yes' : 'no'} |`)
      if (!ok && count > best * 2) break  // well past the last pass: stop
    }
    const ofLimit = subject.model_id === ESPEAK_MODEL ? ` (${(best / rawLimit).toFixed(2)} of the real-time limit)` : ''
    concurrency.push(`| ${subject.name}: most contexts gapless with lag p99 < 20 ms | **${best}**${ofLimit} | | | | | |`)
  }
  host.send('stop')
  await engine.close()

  const section = writeSection('server', `## Server

Generated by \`node --import tsx bench/studies/server.ts\`; ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${cpus().length} cores, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows up in every figure).

Method: the standalone server (\`svc-tts serve\`'s default) runs in its own process on 127.0.0.1; the client is this process. Text: "${TEXT}", raw pcm_s16le at 22.05 kHz, voice Sarah. In-process first audio is \`engine.speak()\` to its first chunk; HTTP first byte is a node:http POST /text_to_speech/streaming to its first body byte (new connection each time); WebSocket first audio is sending a context's text (initializeContext, then close_context) on an open, initialised connection to its first audioOutput. ${RUNS} runs after ${WARMUP} warm-up runs, interleaved. Server cost = HTTP first byte median minus in-process median.

| synthesizer | in-process first audio, median | p95 | HTTP streaming first byte, median | p95 | WebSocket first audio, median | p95 | server cost (HTTP - in-process) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${firstAudio.join('\n')}

Concurrent contexts: N contexts (25 per socket, under a connection's default limit of 200 messages a second) each get the same ${PARAGRAPH.trim().split(' ').length}-word paragraph a word per message, a word every 150 ms (about twice the pace it is spoken at), then close. Each context's audio is "played" in real time from its first chunk: a gap is a chunk arriving after the previous one has finished playing. Gapless = no gap over 50 ms. Lag = the server process's event-loop delay (monitorEventLoopDelay) during the run. N grows until a run fails at more than twice the last passing N. The cores' real-time limit: ${cpus().length} \`espeak-ng -w\` processes (one a core, the Harvard sentences ten times over, en-us+f3) make ${rawLimit.toFixed(0)} audio seconds a second (median of ${programPasses.length} passes, ${programPasses.map((v) => v.toFixed(0)).join(', ')}), so at most about ${rawLimit.toFixed(0)} contexts can be heard in real time at once; the client's side of every context runs on the same cores.

| synthesizer | contexts | gapless contexts | worst gap | server event-loop lag p99 | max | pass |
| --- | --- | --- | --- | --- | --- | --- |
${concurrency.join('\n')}
`)
  process.stdout.write(section)
}

await main()
