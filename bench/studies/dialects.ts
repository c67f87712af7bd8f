/**
 * First audio over each API dialect against the SPEC's own route on the same server and run: HTTP
 * streaming (SPEC /text_to_speech/streaming, OpenAI /v1/audio/speech, ElevenLabs
 * /v1/text-to-speech/{voice}/stream, Cartesia /tts/bytes) and the WebSockets (the SPEC's, ElevenLabs'
 * multi-stream-input, Cartesia's /tts/websocket), all raw 16-bit PCM at 24 kHz on espeak-ng. The
 * dialects translate onto the same admission and engine, so their cost should be the translation
 * alone. Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/dialects.ts
 */
import { fork } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { PREDEFINED_VOICES } from '../../lib/index.js'
import { httpFirstByte } from '../harness/http-first-byte.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'

const KEY = 'sk_bench_0000000000000000000000000000000000000000'
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const RUNS = 40
const WARMUP = 5
const MODEL = 'svc_flash_v1.5'
const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id
const RAW_24K = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 } as const

interface HttpSubject {
  name: string
  path: string
  headers: Record<string, string>
  body: unknown
}

const HTTP: HttpSubject[] = [
  { name: 'SPEC POST /text_to_speech/streaming', path: '/text_to_speech/streaming', headers: { 'x-api-key': KEY }, body: { model_id: MODEL, transcript: TEXT, voice: { mode: 'id', id: sarah }, output_format: RAW_24K } },
  { name: 'OpenAI POST /v1/audio/speech (pcm)', path: '/v1/audio/speech', headers: { authorization: `Bearer ${KEY}` }, body: { model: MODEL, input: TEXT, voice: sarah, response_format: 'pcm' } },
  { name: 'ElevenLabs POST /v1/text-to-speech/{voice}/stream (pcm_24000)', path: `/v1/text-to-speech/${sarah}/stream?output_format=pcm_24000`, headers: { 'xi-api-key': KEY }, body: { text: TEXT, model_id: MODEL } },
  { name: 'Cartesia POST /tts/bytes (raw pcm_s16le 24 kHz)', path: '/tts/bytes', headers: { 'x-api-key': KEY, 'cartesia-version': '2025-04-16' }, body: { model_id: MODEL, transcript: TEXT, voice: { mode: 'id', id: sarah }, output_format: RAW_24K } },
]

type Host = { port: number; stop(): void }

async function startHost(): Promise<Host> {
  const child = fork(path.join(import.meta.dirname, '../workers/server-host.ts'), { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_KEY: KEY }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })))
  return { port, stop: () => child.send('stop') }
}

/** From sending the request (a new connection) to the first byte of its body. */
function subjectFirstByte(port: number, subject: HttpSubject): Promise<number> {
  return httpFirstByte({ port, path: subject.path, body: JSON.stringify(subject.body), headers: subject.headers })
}

/**
 * A WebSocket dialect: how its socket opens, what one context's text is, and how its messages say
 * "audio for this context" and "this context is over".
 */
interface WsSubject {
  name: string
  url(port: number): string
  /** Sent once the socket is open. */
  opening: unknown[]
  context(id: string): unknown[]
  audioOf(message: Record<string, unknown>, id: string): boolean
  endOf(message: Record<string, unknown>, id: string): boolean
}

const WS: WsSubject[] = [
  {
    name: 'SPEC /text_to_speech/websocket/ws',
    url: (port) => `ws://127.0.0.1:${port}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`,
    opening: [{ model_id: MODEL, voice: { mode: 'id', id: sarah }, output_format: RAW_24K }],
    context: (id) => [{ context_id: id, transcript: `${TEXT} ` }, { context_id: id, close_context: true, transcript: '' }],
    audioOf: (m, id) => m.context_id === id && typeof m.audio === 'string' && m.audio !== '',
    endOf: (m, id) => m.context_id === id && m.final === true && m.audio === '',
  },
  {
    name: 'ElevenLabs multi-stream-input (pcm_24000)',
    url: (port) => `ws://127.0.0.1:${port}/v1/text-to-speech/${sarah}/multi-stream-input?model_id=${MODEL}&output_format=pcm_24000`,
    opening: [{ text: ' ', xi_api_key: KEY, context_id: 'open' }],
    context: (id) => [{ context_id: id, text: `${TEXT} `, flush: true }, { context_id: id, close_context: true }],
    audioOf: (m, id) => m.contextId === id && typeof m.audio === 'string' && m.audio !== '',
    endOf: (m, id) => m.contextId === id && m.isFinal === true,
  },
  {
    name: 'Cartesia /tts/websocket (raw pcm_s16le 24 kHz)',
    url: (port) => `ws://127.0.0.1:${port}/tts/websocket?api_key=${KEY}&cartesia_version=2025-04-16`,
    opening: [],
    context: (id) => [{ context_id: id, model_id: MODEL, voice: { mode: 'id', id: sarah }, output_format: RAW_24K, transcript: TEXT, continue: false }],
    audioOf: (m, id) => m.context_id === id && m.type === 'chunk',
    endOf: (m, id) => m.context_id === id && m.type === 'done',
  },
]

async function openSocket(port: number, subject: WsSubject): Promise<WebSocket> {
  const socket = new WebSocket(subject.url(port))
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)))
  for (const message of subject.opening) socket.send(JSON.stringify(message))
  return socket
}

/** From sending a context's text on an open socket to its first audio; waits for the context's end. */
function wsFirstAudio(socket: WebSocket, subject: WsSubject, id: string): Promise<number> {
  const started = performance.now()
  let first = 0
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>
      if (message.error !== undefined || message.error_code !== undefined || message.type === 'error') {
        socket.off('message', onMessage)
        reject(new Error(`${subject.name}: ${String(data)}`))
      }
      if (!first && subject.audioOf(message, id)) first = performance.now() - started
      if (first && subject.endOf(message, id)) {
        socket.off('message', onMessage)
        resolve(first)
      }
    }
    socket.on('message', onMessage)
    for (const message of subject.context(id)) socket.send(JSON.stringify(message))
  })
}

const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  const host = await startHost()
  const http = HTTP.map(() => [] as number[])
  const ws = WS.map(() => [] as number[])
  const sockets = await Promise.all(WS.map((subject) => openSocket(host.port, subject)))
  // Interleaved, each run starting at the next subject, so that what the machine does meanwhile,
  // and being first or last in a run, falls on every subject alike.
  const rotated = (count: number, run: number) => Array.from({ length: count }, (_, k) => (k + run) % count)
  for (let run = 0; run < WARMUP + RUNS; run++) {
    for (const i of rotated(HTTP.length, run)) {
      const ms = await subjectFirstByte(host.port, HTTP[i]!)
      if (run >= WARMUP) http[i]!.push(ms)
    }
    for (const i of rotated(WS.length, run)) {
      const ms = await wsFirstAudio(sockets[i]!, WS[i]!, `r${run}`)
      if (run >= WARMUP) ws[i]!.push(ms)
    }
  }
  for (const socket of sockets) socket.close()
  host.stop()

  const rows = (subjects: { name: string }[], times: number[][]) => {
    const base = median(times[0]!)
    return subjects
      .map((subject, i) => {
        const m = median(times[i]!)
        const against = i === 0 ? 'the baseline' : `${m - base >= 0 ? '+' : ''}${fmt(m - base)} ms${Math.abs(m - base) <= 2 ? ': **met**' : ': **not met**'}`
        return `| ${subject.name} | ${fmt(m)} ms | ${fmt(quantile(times[i]!, 0.95))} ms | ${against} |`
      })
      .join('\n')
  }
  const section = writeSection('dialects', `## API dialects

Generated by \`node --import tsx bench/studies/dialects.ts\`; ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${cpus().length} cores, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end.

Method: the standalone server (every dialect on, as \`svc-tts serve\` runs) in its own process on 127.0.0.1, the client in this one. Text: "${TEXT}", espeak-ng (Sarah, ${MODEL}), raw 16-bit PCM at 24 kHz in every dialect. HTTP: from sending the request (a new connection each time) to the first byte of the body. WebSocket: on a socket opened once, from sending one context's text to that context's first audio message. ${RUNS} runs after ${WARMUP} warm-up runs, every subject in turn within each run, each run starting with the next subject. Target: each dialect's median within 2 ms of the SPEC route's.

| HTTP streaming | first byte, median | p95 | against the SPEC's route |
| --- | --- | --- | --- |
${rows(HTTP, http)}

| WebSocket | first audio, median | p95 | against the SPEC's socket |
| --- | --- | --- | --- |
${rows(WS, ws)}
`)
  process.stdout.write(section)
}

await main()
