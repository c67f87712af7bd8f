/**
 * What the server studies (server-cost.ts, server-profile.ts) serve and how they load it: the three
 * fast-to-slow voices with one request each, `svc-tts serve` (bench/workers/serve-cost-host.ts)
 * started and read until it listens, and one streamed request over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request, type Agent } from 'node:http'
import { PREDEFINED_VOICES } from '../../lib/index.js'

/** The key serve-cost-host's server is given (SVC_TTS_API_KEYS). */
export const SERVE_KEY = 'sk_bench_0000000000000000000000000000000000000000'
export const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'

const voiceId = (name: string) => PREDEFINED_VOICES.find((v) => v.record.name === name)!.record.voice_id
export const SERVED_VOICES = [
  { key: 'espeak', name: 'espeak-ng (Sarah, svc_flash_v1.5)', model_id: 'svc_flash_v1.5', voice: voiceId('Sarah'), sampleRate: 22050 },
  { key: 'kal16', name: 'flite kal16 (Kal, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', voice: voiceId('Kal'), sampleRate: 16000 },
  { key: 'slt', name: 'flite slt (Sarah, svc_pro_v1.0)', model_id: 'svc_pro_v1.0', voice: voiceId('Sarah'), sampleRate: 16000 },
] as const
export type ServedVoice = (typeof SERVED_VOICES)[number]

/** The request each client sends: TEXT in `voice`, raw PCM at its own rate. */
export const requestOf = (voice: ServedVoice) => ({
  model_id: voice.model_id,
  transcript: TEXT,
  voice: { mode: 'id' as const, id: voice.voice },
  output_format: { container: 'raw' as const, encoding: 'pcm_s16le' as const, sample_rate: voice.sampleRate },
})

export interface Served {
  child: ChildProcess
  port: number
}

/** Starts `svc-tts serve` from `command` (its log lines read here, as a log collector would), once it listens. */
export function startServed(command: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Served> {
  const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env: { ...options.env, SVC_TTS_API_KEYS: SERVE_KEY }, stdio: ['ignore', 'pipe', 'inherit'] })
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

/** One streamed request for `voice` to the server on `port`, its audio read to the end: the bytes it made. */
export function overHttp(port: number, agent: Agent, voice: ServedVoice): () => Promise<number> {
  const body = JSON.stringify(requestOf(voice))
  const once = (): Promise<number> => new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, agent, path: '/text_to_speech/streaming', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': SERVE_KEY } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`status ${response.statusCode}`))
      let bytes = 0
      response.on('data', (part: Buffer) => (bytes += part.length))
      response.on('end', () => resolve(bytes))
      response.on('error', reject)
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed for idling as this request went out: sent again on a
      // fresh one, as Node's documentation advises (the server never saw it).
      if (req.reusedSocket && error.code === 'ECONNRESET') resolve(once())
      else reject(error)
    })
    req.end(body)
  })
  return once
}
