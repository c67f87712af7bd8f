// ElevenLabs' WebSockets (the SDK has types for them but no client): the documented message flow
// over `ws` against the real server, typed with the SDK's own message types.
import type { ElevenLabs } from '@elevenlabs/elevenlabs-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ffmpegDecode } from '../../helpers/decode.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const SARAH = voiceId('Sarah')
type Received = ElevenLabs.AudioOutputMulti & { isFinal?: boolean | null; contextId?: string; error?: string; code?: number; message?: string }

const received = (client: WsClient) => client.events as unknown as Received[]
const of = (client: WsClient, id: string) => received(client).filter((e) => e.contextId === id)
const audioOf = (events: Received[]) => Buffer.concat(events.map((e) => Buffer.from(e.audio ?? '', 'base64')))
const finals = (events: Received[]) => events.filter((e) => e.isFinal === true)

function url(server: Running, socket: 'stream-input' | 'multi-stream-input', query = 'model_id=eleven_flash_v2_5&output_format=pcm_16000'): string {
  return `${server.ws}/v1/text-to-speech/${SARAH}/${socket}?${query}`
}

describe.each(ADAPTERS)('ElevenLabs WebSockets on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('stream-input: the key in the first message, text as it comes, flush, then {"text": ""} speaks the rest and closes', async () => {
    const client = await WsClient.connect(url(server, 'stream-input'))
    client.send({ text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8, speed: 1 }, generation_config: { chunk_length_schedule: [50] }, xi_api_key: KEY })
    client.send({ text: 'The birch canoe slid ', try_trigger_generation: true })
    client.send({ text: 'on the smooth planks. ', flush: true })
    await client.until(() => received(client).some((e) => e.audio))
    client.send({ text: 'Glue the sheet to the dark blue background. ' })
    client.send({ text: '' })
    const closed = await client.closed
    expect(closed.code).toBe(1000)
    const events = received(client)
    expect(events.filter((e) => e.error)).toEqual([])
    expect(events.at(-1)).toEqual({ isFinal: true })
    expect(finals(events)).toHaveLength(1)
    const seconds = audioOf(events).length / 2 / 16000
    expect(seconds).toBeGreaterThan(3)
    expect(seconds).toBeLessThan(10)
    // Alignment with the audio: the words as spoken, times from the start of the audio, within it.
    const chars = events.flatMap((e) => e.alignment?.chars ?? []).join('')
    expect(chars).toBe('The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ')
    const starts = events.flatMap((e) => e.normalizedAlignment?.charStartTimesMs ?? [])
    expect(Math.max(...starts)).toBeLessThanOrEqual(seconds * 1000)
    starts.forEach((start, i) => expect(start).toBeGreaterThanOrEqual(i > 0 ? starts[i - 1]! : 0))
  })

  it('multi-stream-input: two interleaved contexts, flush and close_context: audio and one isFinal each, nothing after', async () => {
    const client = await WsClient.connect(url(server, 'multi-stream-input'), { headers: { 'xi-api-key': KEY } })
    client.send({ text: ' ', context_id: 'a', voice_settings: {} })
    client.send({ text: ' ', context_id: 'b' })
    client.send({ text: 'Context a speaks ', context_id: 'a' })
    client.send({ text: 'Context b answers in turn. ', context_id: 'b', flush: true })
    client.send({ text: 'its first sentence. ', context_id: 'a', flush: true })
    client.send({ text: '', context_id: 'a', flush: true })
    client.send({ context_id: 'a', close_context: true })
    client.send({ context_id: 'b', close_context: true })
    await client.until(() => finals(of(client, 'a')).length === 1 && finals(of(client, 'b')).length === 1)
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (const id of ['a', 'b']) {
      const events = of(client, id)
      expect(events.at(-1)).toEqual({ isFinal: true, contextId: id })
      expect(finals(events)).toHaveLength(1)
      expect(audioOf(events).length / 2 / 16000).toBeGreaterThan(1)
    }
    expect(received(client).filter((e) => e.error)).toEqual([])
    client.send({ close_socket: true })
    expect((await client.closed).code).toBe(1000)
  })

  it('multi-stream-input: close_context on text never flushed stops the context: isFinal, then nothing', async () => {
    const client = await WsClient.connect(url(server, 'multi-stream-input'), { headers: { 'xi-api-key': KEY } })
    const long = Array.from({ length: 30 }, () => 'The birch canoe slid on the smooth planks.').join(' ')
    client.send({ text: ' ', context_id: 'turn' })
    client.send({ text: long, context_id: 'turn' })
    client.send({ context_id: 'turn', close_context: true })
    await client.until(() => finals(of(client, 'turn')).length === 1)
    const at = of(client, 'turn').length
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(of(client, 'turn')).toHaveLength(at)
    expect(audioOf(of(client, 'turn')).length / 2 / 16000).toBeLessThan(30)
    client.socket.close()
    await client.closed
  })
})

describe('ElevenLabs WebSockets: compressed audio (standalone)', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('mp3_22050_32: a context\'s chunks join into one MP3 of plausible length, every word aligned', async () => {
    const client = await WsClient.connect(url(server, 'multi-stream-input', 'model_id=eleven_turbo_v2_5&output_format=mp3_22050_32'), { headers: { 'xi-api-key': KEY } })
    const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
    client.send({ text: ' ', context_id: 'mp3' })
    client.send({ text, context_id: 'mp3', flush: true })
    client.send({ context_id: 'mp3', close_context: true })
    await client.until(() => finals(of(client, 'mp3')).length === 1)
    const decoded = ffmpegDecode(audioOf(of(client, 'mp3')), 'mp3')
    expect(decoded.sampleRate).toBe(22050)
    expect(decoded.samples.length / 22050).toBeGreaterThan(3)
    expect(of(client, 'mp3').flatMap((e) => e.alignment?.chars ?? []).join('')).toBe(`${text} `)
    client.send({ close_socket: true })
    await client.closed
  })
})

describe('ElevenLabs WebSockets: refusals in ElevenLabs\' shape (standalone)', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('a bad key in the first message: an error message, then the socket closes', async () => {
    const client = await WsClient.connect(url(server, 'stream-input'))
    client.send({ text: ' ', xi_api_key: 'sk_wrong_key_0123456789abcdef0123' })
    const closed = await client.closed
    expect(closed.code).toBe(1008)
    expect(received(client)).toEqual([{ error: 'invalid_api_key', message: expect.any(String), code: 401 }])
  })

  it('the key may come as the xi_api_key query parameter', async () => {
    const client = await WsClient.connect(url(server, 'stream-input', `model_id=eleven_flash_v2_5&output_format=pcm_16000&xi_api_key=${KEY}`))
    client.send({ text: ' ' })
    client.send({ text: 'Hello there.', flush: true })
    client.send({ text: '' })
    expect((await client.closed).code).toBe(1000)
    expect(audioOf(received(client)).length / 2 / 16000).toBeGreaterThan(0.4)
  })

  it('a bad key in the header refuses the handshake with a 401 in ElevenLabs\' shape', async () => {
    const refused = await WsClient.connect(url(server, 'multi-stream-input'), { headers: { 'xi-api-key': 'sk_wrong_key_0123456789abcdef0123' } }).then(
      () => undefined,
      (e: { status: number; body: unknown }) => e,
    )
    expect(refused).toMatchObject({ status: 401, body: { detail: { status: 'invalid_api_key' } } })
  })

  it.each([
    ['a bad output_format', 'model_id=eleven_flash_v2_5&output_format=mp3_1_1', 'invalid_output_format', 400],
    ['an unknown model', 'model_id=eleven_nothing', 'model_not_found', 400],
  ])('%s: an error message naming it', async (_what, query, error, code) => {
    const client = await WsClient.connect(url(server, 'multi-stream-input', query), { headers: { 'xi-api-key': KEY } })
    client.send({ text: ' ', context_id: 'x' })
    await client.until(() => received(client).length > 0)
    expect(received(client)[0]).toMatchObject({ error, code, message: expect.any(String) })
    client.socket.close()
    await client.closed
  })

  it('an unknown voice: the error of each message that would start a context carries its contextId, and the socket still ends', async () => {
    const client = await WsClient.connect(`${server.ws}/v1/text-to-speech/no-such-voice/multi-stream-input?output_format=pcm_16000`, { headers: { 'xi-api-key': KEY } })
    client.send({ text: ' ', context_id: 'x' })
    client.send({ text: 'Hello there. ', context_id: 'y', flush: true })
    await client.until(() => received(client).length === 2)
    expect(received(client)).toEqual([
      { error: 'voice_not_found', message: expect.any(String), code: 404, contextId: 'x' },
      { error: 'voice_not_found', message: expect.any(String), code: 404, contextId: 'y' },
    ])
    client.send({ close_socket: true })
    expect((await client.closed).code).toBe(1000)
  })
})
