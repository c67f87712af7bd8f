// One gate per request: an HTTP request, a WebSocket context and a library call are each parsed
// once (every parse of outside input publishes on PARSE_CHANNEL), however many layers they cross.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SpeechChunk } from '../../lib/index.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'
import { parsesOf } from '../helpers/parses.js'
import { KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()

const request = (transcript: string) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', sample_rate: 16000 } }) as const

describe('a library call is parsed once', () => {
  it.each([
    ['synthesize', () => engine.synthesize(request('Hello there.'))],
    ['stream', () => collect(engine.stream(request('Hello there.')))],
    ['synthesizeWithTimestamps', () => engine.synthesizeWithTimestamps(request('Hello there.'))],
    ['speak', () => collect(engine.speak(request('Hello there.')))],
    ['open', async () => {
      const session = await engine.open({ ...request('Hello '), transcript: 'Hello ' })
      session.write('there.')
      session.end()
      return collect(session as AsyncIterable<SpeechChunk>)
    }],
  ])('%s', async (_name, call) => {
    expect(await parsesOf(call)).toEqual([expect.stringMatching(/request$/)])
  })

  it('a request the caller parsed with the gate is not parsed again', async () => {
    const { parseRequest } = await import('../../lib/schemas/index.js')
    const parsed = parseRequest(request('Hello there.'), 'synthesis')
    expect(await parsesOf(() => engine.synthesize(parsed))).toEqual([])
  })
})

describe('an HTTP request is parsed once', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it.each(['/text_to_speech', '/text_to_speech/streaming', '/text_to_speech/with_timestamps'])('POST %s', async (path) => {
    const found = await parsesOf(async () => {
      const response = await post(server.base, path, request('Hello there.'))
      expect(response.status).toBe(200)
      await response.arrayBuffer()
    })
    expect(found).toEqual(['synthesis request'])
  })

  it('the voice operations with a body', async () => {
    expect(await parsesOf(async () => expect((await post(server.base, '/voices', { limit: 5 })).status).toBe(200))).toEqual(['voice list options'])
    const batch = { voice_ids: [voiceId('Sarah'), voiceId('Kal')] }
    expect(await parsesOf(async () => expect((await post(server.base, '/voices/batch', batch)).status).toBe(200))).toEqual(['voice batch request'])
  })
})

describe('a WebSocket context is parsed once', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('whether it keeps the connection\'s request or overrides a field of it', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    const { transcript: _, ...connection } = request('')
    expect(await parsesOf(async (parses) => {
      client.send(connection)
      await client.until(() => parses.length > 0)
    })).toEqual(['initializeConnection message'])
    for (const [id, message] of [
      ['kept', { transcript: 'Hello there. ', force: true }],
      ['overridden', { transcript: 'Hello there. ', force: true, voice: { mode: 'id', id: voiceId('Kal') }, speed: 1.2 }],
    ] as const) {
      expect(await parsesOf(async () => {
        client.send({ context_id: id, ...message })
        await client.until(() => client.audio(id).length > 0)
      }), id).toEqual(['text message'])
    }
    client.socket.close()
    await client.closed
  })
})
