// The ElevenLabs dialect adds one parse of its own wire shape to the engine's one gate, never more:
// an HTTP request is its body's check, then the SPEC request's; a WebSocket frame is the frame's
// check, then the SPEC message's (counted on PARSE_CHANNEL, as test/engine/gate.test.ts does).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { parsesOf } from '../../helpers/parses.js'
import { KEY, start, TEST_KEYS, WsClient, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const SARAH = voiceId('Sarah')

describe('the ElevenLabs dialect parses each input twice: its own shape, then the SPEC\'s', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it.each(['', '/stream', '/with-timestamps', '/stream/with-timestamps'])('POST /v1/text-to-speech/{voice_id}%s', async (suffix) => {
    const found = await parsesOf(async () => {
      const response = await fetch(`${server.base}/v1/text-to-speech/${SARAH}${suffix}?output_format=pcm_16000`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': KEY },
        body: JSON.stringify({ text: 'Hello there.', model_id: 'eleven_flash_v2_5', voice_settings: { speed: 1.1 } }),
      })
      expect(response.status).toBe(200)
      await response.arrayBuffer()
    })
    expect(found).toEqual(['text-to-speech request', 'synthesis request'])
  })

  it('a WebSocket frame: the frame, then the SPEC message(s) it becomes', async () => {
    const client = await WsClient.connect(`${server.ws}/v1/text-to-speech/${SARAH}/multi-stream-input?model_id=eleven_flash_v2_5&output_format=pcm_16000`, { headers: { 'xi-api-key': KEY } })
    expect(await parsesOf(async (parses) => {
      client.send({ text: ' ', context_id: 'a' })
      await client.until(() => parses.length >= 3)
    })).toEqual(['message', 'initializeConnection message', 'text message'])
    expect(await parsesOf(async () => {
      client.send({ text: 'Hello there. ', context_id: 'a', flush: true })
      await client.until(() => client.events.some((e) => e.audio))
    })).toEqual(['message', 'text message'])
    client.socket.close()
    await client.closed
  })
})
