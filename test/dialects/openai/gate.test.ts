// The OpenAI dialect is a translation onto the service's one path: a speech request is checked by
// the dialect's schema once and by the SPEC's gate once, and the service's limits answer in
// OpenAI's shape (the SDK's RateLimitError, with Retry-After).
import OpenAI, { RateLimitError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PARSE_CHANNEL } from '../../../lib/index.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const parses: string[] = []
const onParse = (message: unknown) => parses.push((message as { what: string }).what)
PARSE_CHANNEL.subscribe(onParse)
afterAll(() => PARSE_CHANNEL.unsubscribe(onParse))

describe('a speech request crosses one gate', () => {
  let server: Running
  let openai: OpenAI
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    openai = new OpenAI({ apiKey: KEY, baseURL: `${server.base}/v1`, maxRetries: 0 })
  })
  afterAll(() => server.close())

  it.each([
    ['an OpenAI voice name', 'alloy'],
    ['an svc-tts voice name', 'Richard'],
    ['an svc-tts voice id', voiceId('Kal')],
  ])('checked by the dialect\'s schema once and the SPEC gate once (%s)', async (_what, voice) => {
    parses.length = 0
    for (const stream_format of ['audio', 'sse'] as const) {
      const response = await openai.audio.speech.create({ model: 'tts-1', voice, input: 'Hello there.', response_format: 'pcm', stream_format })
      expect(response.status).toBe(200)
      await response.arrayBuffer()
    }
    expect(parses).toEqual(['OpenAI speech request', 'synthesis request', 'OpenAI speech request', 'synthesis request'])
  })

  it('a body the dialect\'s schema refuses never reaches the gate', async () => {
    parses.length = 0
    await expect(openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello.', speed: 3 })).rejects.toMatchObject({ status: 400, param: 'speed' })
    expect(parses).toEqual(['OpenAI speech request'])
  })
})

describe('the service\'s limits, in OpenAI\'s shape', () => {
  it('past the request rate: RateLimitError 429 rate_limit_exceeded with Retry-After; past the usage: 429 insufficient_quota', async () => {
    const server = await start('standalone', { engine, keys: TEST_KEYS, limits: { requestsPerWindow: 2, windowSeconds: 60, charactersPerPeriod: 20 } })
    try {
      const openai = new OpenAI({ apiKey: KEY, baseURL: `${server.base}/v1`, maxRetries: 0 })
      const speak = (input: string) => openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'pcm' })
      await expect(speak('Hello there, how are you today?')).rejects.toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' })
      await (await speak('Hello.')).arrayBuffer()
      const error = await speak('Hello.').then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(RateLimitError)
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests', param: null })
      expect(Number((error as RateLimitError).headers?.get('retry-after'))).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  })
})
