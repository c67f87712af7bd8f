// Seeded random bodies against the OpenAI dialect's routes (malformed JSON, huge bodies, wrong
// types, random fields, mutated valid requests, odd keys and queries): every answer is audio or an
// OpenAI-shaped error below 500, each within a deadline, and the server still speaks afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { random } from '../../helpers/random.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const SEED = Number(process.env.SVC_TTS_FUZZ_SEED ?? 20261126)
const REQUESTS = 400
const AT_ONCE = 8
const DEADLINE_MS = 10_000

type Next = () => number
const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!

const STRINGS = ['', 'Hello there.', 'a'.repeat(4096), 'a'.repeat(4097), '<break time="1s"/>', '<shout>x</shout>', '\u0000\ud800', '😀'.repeat(50), '$3.50 on 12/05/2023']
const VALUES: (() => unknown)[] = [
  () => null, () => true, () => 0, () => -1, () => 1e308, () => 0.5, () => 'x', () => [], () => ({}), () => [1, 'a', null],
  () => ({ id: 'alloy' }), () => ({ id: 7 }), () => ({ __proto__: { polluted: true } }), () => 'aac', () => 'x'.repeat(10_000),
]

function speechBody(next: Next): Record<string, unknown> {
  return {
    model: pick(next, ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'svc_flash_v1.0', 'nope', '']),
    input: pick(next, STRINGS),
    voice: pick(next, ['alloy', 'verse', 'Sarah', voiceId('Kal'), { id: voiceId('Alan') }, 'nobody', '', 'Lucía']),
    ...(next() < 0.6 && { response_format: pick(next, ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm', 'ogg', null]) }),
    ...(next() < 0.3 && { speed: pick(next, [0.25, 0.5, 1, 2, 4, -1, '1', null]) }),
    ...(next() < 0.3 && { stream_format: pick(next, ['audio', 'sse', 'ws', null]) }),
    ...(next() < 0.2 && { instructions: pick(next, VALUES)() }),
  }
}

function mutate(next: Next, value: Record<string, unknown>): Record<string, unknown> {
  const roll = next()
  const key = pick(next, Object.keys(value))
  if (roll < 0.35) return { ...value, [key]: pick(next, VALUES)() }
  if (roll < 0.6) {
    const copy = { ...value }
    delete copy[key]
    return copy
  }
  return { ...value, [pick(next, ['stream', 'lang_code', 'Input', '__proto__', 'constructor', 'x'.repeat(300)])]: pick(next, VALUES)() }
}

function speechPayload(next: Next): string | Uint8Array<ArrayBuffer> {
  const roll = next()
  if (roll < 0.45) return JSON.stringify(mutate(next, speechBody(next)))
  if (roll < 0.6) return JSON.stringify(speechBody(next))
  if (roll < 0.65) return '['.repeat(20_000)
  if (roll < 0.7) return JSON.stringify({ ...speechBody(next), input: 'b'.repeat(70_000) })
  if (roll < 0.75) return '{"model": "tts-1", "input": "Hi", "voice": "alloy",'
  if (roll < 0.8) return pick(next, ['null', '[]', '"text"', '1e999', '{}'])
  return Uint8Array.from({ length: Math.floor(next() * 2000) }, () => Math.floor(next() * 256))
}

/** Request `index` of the seed: always the same. */
function fuzzRequest(base: string, index: number): { url: string; init: RequestInit } {
  const next = random(SEED * 1_000_003 + index)
  const keyRoll = next()
  const headers: Record<string, string> = {}
  if (keyRoll < 0.85) headers.authorization = `Bearer ${KEY}`
  else if (keyRoll < 0.95) headers.authorization = pick(next, ['Bearer sk_wrong', 'Bearer', KEY, `Basic ${KEY}`])
  if (next() < 0.2) headers['x-api-key'] = pick(next, [KEY, 'sk_x'])
  const roll = next()
  if (roll < 0.8) {
    headers['content-type'] = pick(next, ['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'])
    return { url: `${base}/v1/audio/speech`, init: { method: 'POST', headers, body: speechPayload(next) } }
  }
  // Targets stay well formed: a malformed one is refused before any route, hence any dialect, is known (the SPEC's shape).
  const path = pick(next, ['/v1/models', '/v1/models/tts-1', '/v1/models/%C3%A9', `/v1/models/${'m'.repeat(90)}`, '/v1/audio/models', '/v1/audio/voices',
    '/v1/audio/voices?limit=3', '/v1/audio/voices?limit=-1', '/v1/audio/voices?limit=abc', '/v1/audio/voices?limit=1e9', '/v1/audio/voices?limit=2&limit=3'])
  return { url: `${base}${path}`, init: { method: 'GET', headers } }
}

interface Answer {
  index: number
  status: number
  type: string | null
  body: string
}

async function send(base: string, index: number): Promise<Answer> {
  const { url, init } = fuzzRequest(base, index)
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) })
  const type = response.headers.get('content-type')
  if (response.ok && !type?.startsWith('application/json')) {
    // Audio: its first bytes are enough; the rest is the engine's, tested elsewhere.
    await response.body?.cancel()
    return { index, status: response.status, type, body: '' }
  }
  return { index, status: response.status, type, body: await response.text() }
}

function isOpenAiError(body: string): boolean {
  try {
    const { error } = JSON.parse(body) as { error?: Record<string, unknown> }
    return typeof error?.message === 'string' && typeof error.type === 'string' && typeof error.code === 'string' && (error.param === null || typeof error.param === 'string')
  } catch {
    return false
  }
}

describe.each(ADAPTERS)(`OpenAI dialect fuzz on %s (seed ${SEED})`, (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, limits: { requestsPerWindow: 100_000 } })
  })
  afterAll(() => server.close())

  it(`${REQUESTS} requests: audio or an OpenAI-shaped error below 500, each within ${DEADLINE_MS} ms`, async () => {
    const answers: Answer[] = []
    let nextIndex = 0
    await Promise.all(Array.from({ length: AT_ONCE }, async () => {
      while (nextIndex < REQUESTS) answers.push(await send(server.base, nextIndex++))
    }))
    expect(answers).toHaveLength(REQUESTS)
    const faults = answers.filter((a) => a.status >= 500 || (!(a.status === 200) && !isOpenAiError(a.body)))
    expect(faults.map((a) => `#${a.index} ${a.status} ${a.body.slice(0, 300)}`)).toEqual([])
    // The seed reaches every kind of answer: audio, SSE, bad keys, refused bodies, too large, not found.
    const statuses = new Set(answers.map((a) => a.status))
    for (const status of [200, 400, 401, 404, 413]) expect(statuses).toContain(status)
    expect(answers.some((a) => a.type === 'text/event-stream')).toBe(true)
    const after = await fetch(`${server.base}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'Still here.', response_format: 'pcm' }),
    })
    expect(after.status).toBe(200)
    expect((await after.arrayBuffer()).byteLength).toBeGreaterThan(24000)
  }, 120_000)
})
