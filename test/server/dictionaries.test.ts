/**
 * A request's pronunciation dictionaries over HTTP and the WebSocket: a rule `Nguyen -> wɪn`
 * gives the audio of `<phonemes>wɪn</phonemes>` in the word's place, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } as const
const request = (transcript: string, extra: Record<string, unknown> = {}) => ({
  model_id: 'svc_flash_v1.5' as const, transcript, voice: { mode: 'id' as const, id: voiceId('Sarah') }, output_format: RAW, ...extra,
})

describe('pronunciation dictionaries over HTTP and WebSocket', () => {
  let server: Running
  let id: string
  let expected: Buffer
  beforeAll(async () => {
    server = await start(ADAPTERS[0]!, { engine, keys: TEST_KEYS })
    id = (await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })).dictionary_id
    expected = await engine.synthesize(request('Hello Mister <phonemes>wɪn</phonemes>.'))
  })
  afterAll(() => server.close())

  it('POST /text_to_speech applies pronunciation_dictionaries', async () => {
    const response = await post(server.base, '/text_to_speech', request('Hello Mister Nguyen.', { pronunciation_dictionaries: [{ id }] }))
    expect(response.status).toBe(200)
    expect(Buffer.from(await response.arrayBuffer()).equals(expected)).toBe(true)
    const missing = await post(server.base, '/text_to_speech', request('Hello.', { pronunciation_dictionaries: [{ id: 'nope' }] }))
    expect([missing.status, ((await missing.json()) as { error_code: string }).error_code]).toEqual([404, 'DICTIONARY_NOT_FOUND'])
  })

  it('a WebSocket connection applies the dictionaries its first message names', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    const { transcript: _, ...init } = request('', { pronunciation_dictionaries: [{ id }] })
    client.send(init)
    client.send({ context_id: 'c', transcript: 'Hello Mister ' })
    client.send({ context_id: 'c', transcript: 'Nguyen. ' })
    client.send({ context_id: 'c', close_context: true, transcript: '' })
    await client.until(() => client.of('c').filter((event) => event.final === true).length === 2)
    expect(client.audio('c').equals(expected)).toBe(true)
    client.socket.close()
  })
})
