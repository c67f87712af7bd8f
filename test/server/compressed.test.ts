/** MP3, Ogg Opus and FLAC over HTTP (content types, streamed = one-shot) and the WebSocket (base-64 chunks of one file). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ffmpegDecode } from '../helpers/decode.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const kal = (output_format: object) => ({ model_id: 'svc_pro_v1.0', transcript: TEXT, voice: { mode: 'id', id: voiceId('Kal') }, output_format })
const TYPES = { mp3: 'audio/mpeg', ogg: 'audio/ogg; codecs=opus', flac: 'audio/flac' } as const

describe.each(ADAPTERS)('compressed audio on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  for (const container of ['mp3', 'ogg', 'flac'] as const) {
    it(`${container}: one file and a stream, with the container's media type, decoding to the same samples`, async () => {
      const format = { container, sample_rate: 24000 }
      const file = await post(server.base, '/text_to_speech', kal(format))
      expect(file.status).toBe(200)
      expect(file.headers.get('content-type')).toBe(TYPES[container])
      const streamed = await post(server.base, '/text_to_speech/streaming', kal(format))
      expect(streamed.headers.get('content-type')).toBe(TYPES[container])
      const one = ffmpegDecode(Buffer.from(await file.arrayBuffer()), container)
      const many = ffmpegDecode(Buffer.from(await streamed.arrayBuffer()), container)
      expect([one.errors, many.errors]).toEqual(['', ''])
      expect(one.samples.length).toBeGreaterThan(24000 * 3)
      expect(Buffer.from(many.samples.buffer).equals(Buffer.from(one.samples.buffer))).toBe(true)
    })
  }

  it('a bad combination is a 400 FORMAT_NOT_RECOGNIZED naming the field', async () => {
    const response = await post(server.base, '/text_to_speech/streaming', kal({ container: 'flac', bit_rate: 64000 }))
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error_code: string; extra: { issues: { path: string[] }[] } }
    expect(body.error_code).toBe('FORMAT_NOT_RECOGNIZED')
    expect(body.extra.issues[0]!.path).toEqual(['output_format', 'bit_rate'])
  })
})

describe('compressed audio on the WebSocket', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())
  const connect = async (output_format: object) => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    client.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') }, output_format, add_timestamps: true })
    return client
  }

  it('each context\'s base-64 chunks join into one file that decodes, words and all', async () => {
    const client = await connect({ container: 'ogg', sample_rate: 16000 })
    for (const id of ['a', 'b']) {
      client.send({ context_id: id, transcript: 'Hello there, how are you today? ' })
      client.send({ context_id: id, transcript: 'I am fine, thank you. ' })
      client.send({ context_id: id, close_context: true, transcript: '' })
    }
    await client.until(() => ['a', 'b'].every((id) => client.of(id).filter((e) => e.final === true).length === 2))
    for (const id of ['a', 'b']) {
      const decoded = ffmpegDecode(client.audio(id), 'ogg')
      expect(decoded.errors).toBe('')
      expect(decoded.samples.length / 48000).toBeGreaterThan(1.5)
      const words = client.of(id).flatMap((e) => (e.alignment as { words: string[] } | undefined)?.words ?? [])
      expect(words.join(' ')).toContain('thank')
    }
    client.socket.close()
  })

  it('refuses a WAV container: a header has no place in a stream of messages', async () => {
    const client = await connect({ container: 'wav' })
    await client.until(() => client.events.length === 1)
    expect(client.events[0]!.error_code).toBe('FORMAT_NOT_RECOGNIZED')
    client.socket.close()
  })
})
