// The ElevenLabs dialect under seeded random input: request bodies and queries of its four
// synthesis routes (valid ones mutated, wrong types, huge, not JSON) and frames of both sockets
// (every message kind with random fields, wrong types, not JSON, binary, huge). Every refusal is
// ElevenLabs-shaped with a status below 500, no frame goes unanswered past a probe, the server
// stays up, and the whole run is bounded. EL_FUZZ_SEED and EL_FUZZ_COUNT change the run.
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { random } from '../../helpers/random.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

const SEED = Number(process.env.EL_FUZZ_SEED ?? 20261126)
const COUNT = Number(process.env.EL_FUZZ_COUNT ?? 600)
const engine = await testEngine()
const SARAH = voiceId('Sarah')

type Next = () => number
const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!

const STRINGS = ['', ' ', 'Hello there. ', 'a'.repeat(5000), '<break time="1s"/>', '<shout>x</shout>', '\u0000\ud800', '😀'.repeat(40), '$3.50 on 12/05/2023. ']
const VALUES: (() => unknown)[] = [
  () => null, () => true, () => 0, () => -1, () => 1e308, () => 'x', () => [], () => ({}), () => [1, 'a', null],
  () => ({ __proto__: { polluted: true } }), () => JSON.parse('{"a":'.repeat(200) + '1' + '}'.repeat(200)) as unknown, () => 'y'.repeat(100_000),
]
const FORMATS = ['mp3_44100_128', 'pcm_16000', 'pcm_32000', 'ulaw_8000', 'opus_48000_64', 'opus_48000_9999', 'wav_8000', 'mp3_8000_320', 'flac', '', 'pcm_16000_16', 'x'.repeat(300)]
const MODELS = ['eleven_flash_v2_5', 'eleven_multilingual_v2', 'svc_pro_v1.0', 'nope', '']

function mutate(next: Next, value: Record<string, unknown>): Record<string, unknown> {
  const key = pick(next, Object.keys(value).length > 0 ? Object.keys(value) : ['text'])
  const roll = next()
  if (roll < 0.35) return { ...value, [key]: pick(next, VALUES)() }
  if (roll < 0.5) {
    const copy = { ...value }
    delete copy[key]
    return copy
  }
  if (roll < 0.65) return { ...value, [pick(next, ['extra', 'voiceSettings', 'contextId', '__proto__'])]: pick(next, VALUES)() }
  return value
}

function speechBody(next: Next): Record<string, unknown> {
  return {
    text: pick(next, STRINGS),
    ...(next() < 0.7 && { model_id: pick(next, MODELS) }),
    ...(next() < 0.4 && { voice_settings: { speed: pick(next, [0.5, 1, 1.2, 3, -1]), stability: pick(next, [0, 0.5, 2]), use_speaker_boost: pick(next, [true, 'yes']) } }),
    ...(next() < 0.2 && { language_code: pick(next, ['en', 'fr-FR', 'xx', '']) }),
    ...(next() < 0.1 && { pronunciation_dictionary_locators: pick(next, [[], [{ pronunciation_dictionary_id: 'a' }], 'x']) }),
    ...(next() < 0.1 && { seed: pick(next, [1, 1.5, 'x']) }),
  }
}

function httpBody(next: Next): string {
  const roll = next()
  if (roll < 0.5) return JSON.stringify(mutate(next, speechBody(next)))
  if (roll < 0.7) return JSON.stringify(speechBody(next))
  if (roll < 0.75) return '['.repeat(20_000)
  if (roll < 0.8) return JSON.stringify({ text: 'z'.repeat(1_200_000) })
  if (roll < 0.9) return pick(next, ['', 'null', '"text"', '{', '[]', '{"text": 1}'])
  return Buffer.from(Array.from({ length: Math.floor(next() * 500) }, () => Math.floor(next() * 256))).toString('latin1')
}

function frame(next: Next): string | Buffer {
  const roll = next()
  if (roll < 0.05) return Buffer.from([0xff, 0x00, 0x81])
  if (roll < 0.1) return pick(next, ['', 'null', '[]', '{', '"x"', '{"text":'.repeat(500)])
  const context = next() < 0.8 ? { context_id: pick(next, ['a', 'b', 'c', '', 'x'.repeat(200)]) } : {}
  const kinds: Record<string, unknown>[] = [
    { text: ' ', voice_settings: { speed: pick(next, [1, 0.9, 5]) }, generation_config: { chunk_length_schedule: [50] } },
    { text: pick(next, STRINGS) },
    { text: pick(next, STRINGS), flush: true },
    { text: 'Some words ', try_trigger_generation: true },
    { text: '' },
    { text: '', flush: true },
    { close_context: true },
    { close_socket: pick(next, [true, false, 'x']) },
    { pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'x' }], text: ' ' },
  ]
  const message = { ...context, ...pick(next, kinds) }
  return JSON.stringify(next() < 0.4 ? mutate(next, message) : message)
}

describe.each(['standalone', 'fastify'] as const)('the ElevenLabs dialect under fuzz (%s)', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it(`${COUNT} random HTTP requests: audio, or an ElevenLabs refusal below 500`, async () => {
    const next = random(SEED)
    const bad: string[] = []
    const statuses: Record<number, number> = {}
    const started = performance.now()
    const one = async (): Promise<void> => {
      const suffix = pick(next, ['', '/stream', '/with-timestamps', '/stream/with-timestamps'])
      const voice = pick(next, [SARAH, SARAH, 'missing', '%C3%A9', '21m00Tcm4TlvDq8ikWAM'])
      const query = next() < 0.7 ? `?output_format=${encodeURIComponent(pick(next, FORMATS))}` : ''
      const key = next() < 0.85 ? KEY : pick(next, ['', 'sk_wrong', KEY.toUpperCase()])
      const response = await fetch(`${server.base}/v1/text-to-speech/${voice}${suffix}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': key },
        body: httpBody(next),
        signal: AbortSignal.timeout(20_000),
      })
      statuses[response.status] = (statuses[response.status] ?? 0) + 1
      const body = Buffer.from(await response.arrayBuffer())
      if (response.status === 200) return
      let parsed: { detail?: { status?: unknown; message?: unknown } } | undefined
      try {
        parsed = JSON.parse(body.toString()) as typeof parsed
      } catch {
        parsed = undefined
      }
      const shaped = typeof parsed?.detail?.status === 'string' && typeof parsed.detail.message === 'string'
      if (response.status >= 500 || !shaped) bad.push(`${response.status} ${body.toString().slice(0, 200)}`)
    }
    for (let i = 0; i < COUNT; i += 4) await Promise.all([one(), one(), one(), one()])
    expect(bad).toEqual([])
    expect(statuses[200]).toBeGreaterThan(COUNT / 50)  // the fuzz reached synthesis
    expect(statuses[400]).toBeGreaterThan(COUNT / 10)
    expect(performance.now() - started).toBeLessThan(90_000)
  }, 120_000)

  it.each(['stream-input', 'multi-stream-input'])(`${COUNT} random frames on %s: every error ElevenLabs-shaped below 500, every probe answered`, async (socketPath) => {
    const next = random(SEED + socketPath.length)
    const bad: string[] = []
    const hangs: string[] = []
    let audio = 0
    let sent = 0
    let probes = 0
    const started = performance.now()
    while (sent < COUNT) {
      const query = next() < 0.8 ? 'model_id=eleven_flash_v2_5&output_format=pcm_16000' : `model_id=${pick(next, MODELS)}&output_format=${encodeURIComponent(pick(next, FORMATS))}`
      const socket = new WebSocket(`${server.ws}/v1/text-to-speech/${SARAH}/${socketPath}?${query}`, { headers: { 'xi-api-key': KEY } })
      socket.on('error', () => {})
      await new Promise((resolve) => socket.once('open', resolve))
      let closed = false
      const answered = new Set<string>()
      socket.on('close', () => (closed = true))
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { error?: unknown; code?: unknown; message?: unknown; audio?: string; contextId?: string }
        if (message.audio) audio++
        if (message.error === undefined) return
        if (typeof message.error !== 'string' || typeof message.message !== 'string' || typeof message.code !== 'number' || message.code >= 500) bad.push(JSON.stringify(message).slice(0, 300))
        if (message.contextId?.startsWith('probe-')) answered.add(message.contextId)
      })
      while (!closed && sent < COUNT) {
        const batch = 1 + Math.floor(next() * 8)
        for (let i = 0; i < batch && !closed; i++, sent++) socket.send(frame(next))
        if (closed) break
        // A probe, answered only once every frame before it was handled: on the multi socket a frame
        // refused in its shape (its refusal names its context); on the other, the end of input (the socket closes).
        const probe = `probe-${probes++}`
        const multi = socketPath === 'multi-stream-input'
        socket.send(JSON.stringify(multi ? { context_id: probe, flush: probe } : { text: '' }))
        const deadline = Date.now() + 20_000
        while (!closed && !answered.has(probe) && Date.now() < deadline) await sleep(2)
        if (!closed && !answered.has(probe)) hangs.push(probe)
        if (!multi) break
      }
      socket.close()
      await new Promise((resolve) => (closed ? resolve(undefined) : socket.once('close', resolve)))
    }
    expect(bad).toEqual([])
    expect(hangs).toEqual([])
    expect(audio).toBeGreaterThan(0)
    expect(performance.now() - started).toBeLessThan(90_000)
    expect((await fetch(`${server.base}/v1/models`, { headers: { 'xi-api-key': KEY } })).status).toBe(200)
  }, 120_000)
})
