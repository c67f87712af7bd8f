/** ElevenLabs' pronunciation_dictionary_locators name svc-tts's dictionaries, over HTTP and the WebSocket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { KEY, start, TEST_KEYS, WsClient, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const SARAH = voiceId('Sarah')

describe('ElevenLabs pronunciation_dictionary_locators', () => {
  let server: Running
  let id: string
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    id = (await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })).dictionary_id
    await engine.dictionaries.update(id, { rules: [{ text: 'Nguyen', alias: 'Newman' }] })
  })
  afterAll(() => server.close())

  const convert = async (text: string, locators?: unknown) => {
    const response = await fetch(`${server.base}/v1/text-to-speech/${SARAH}?output_format=pcm_16000`, {
      method: 'POST',
      headers: { 'xi-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ text, model_id: 'eleven_flash_v2_5', ...(locators !== undefined && { pronunciation_dictionary_locators: locators }) }),
    })
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()) }
  }

  it('apply the dictionary at the version named, or its latest', async () => {
    const v1 = await convert('Hello Nguyen.', [{ pronunciation_dictionary_id: id, version_id: '1' }])
    expect(v1.status).toBe(200)
    expect(v1.body.equals((await convert('Hello <phonemes>wɪn</phonemes>.')).body)).toBe(true)
    expect((await convert('Hello Nguyen.', [{ pronunciation_dictionary_id: id }])).body.equals((await convert('Hello Newman.')).body)).toBe(true)
    const missing = await convert('Hello.', [{ pronunciation_dictionary_id: 'nope' }])
    expect([missing.status, JSON.parse(missing.body.toString()).detail.status]).toEqual([404, 'pronunciation_dictionary_not_found'])
  })

  it('apply on stream-input, named in the first message', async () => {
    const socket = await WsClient.connect(`${server.ws}/v1/text-to-speech/${SARAH}/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_16000`, { headers: { 'xi-api-key': KEY } })
    socket.send({ text: ' ', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: id, version_id: '1' }] })
    socket.send({ text: 'Hello Nguyen. ' })
    socket.send({ text: '' })
    await socket.until(() => socket.events.some((event) => event.isFinal === true))
    const audio = Buffer.concat(socket.events.filter((event) => typeof event.audio === 'string').map((event) => Buffer.from(event.audio as string, 'base64')))
    expect(audio.equals((await convert('Hello <phonemes>wɪn</phonemes>.')).body)).toBe(true)
  })
})
