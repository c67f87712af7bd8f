/**
 * SSML over the wire: the with-timestamps response carries its marks, a malformed document is a
 * 400 naming its offset, the unknown-elements option is a request field, and a WebSocket context
 * speaks a document written in pieces as the HTTP request does, its marks in its audioOutputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const DOCUMENT = '<speak>One two <mark name="middle"/>three <sub alias="World Wide Web">WWW</sub>.<mark name="end"/></speak>'
const flash = (transcript: string, extra: Record<string, unknown> = {}) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, ...extra })

interface Timestamped {
  audio_base64: string
  alignment: { words: string[]; word_start_times_milliseconds: number[]; word_end_times_milliseconds: number[] }
  marks?: { name: string; time_seconds: number }[]
}

describe('SSML over HTTP and WebSocket', () => {
  let server: Running
  beforeAll(async () => {
    server = await start(ADAPTERS[0]!, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('POST /text_to_speech/with_timestamps adds the marks, each between the words around it', async () => {
    const response = await post(server.base, '/text_to_speech/with_timestamps', flash(DOCUMENT))
    expect(response.status).toBe(200)
    const body = (await response.json()) as Timestamped
    expect(body.alignment.words).toEqual(['One', 'two', 'three', 'WWW'])
    expect(body.marks!.map((mark) => mark.name)).toEqual(['middle', 'end'])
    const middleMs = body.marks![0]!.time_seconds * 1000
    expect(middleMs).toBeGreaterThanOrEqual(body.alignment.word_end_times_milliseconds[1]!)
    expect(middleMs).toBeLessThanOrEqual(body.alignment.word_start_times_milliseconds[2]!)
    const plain = (await (await post(server.base, '/text_to_speech/with_timestamps', flash('One two three.'))).json()) as Timestamped
    expect(plain.marks).toBeUndefined()  // the response is unchanged without SSML marks
  })

  it('a malformed document is a 400 INVALID_MARKUP with its offset; an unknown element too, unless read as text', async () => {
    for (const [transcript, offset] of [['<speak>One <s>two</speak>', 17], ['<speak>One <audio src="a.wav">two</audio></speak>', 11]] as const) {
      const response = await post(server.base, '/text_to_speech', flash(transcript))
      expect(response.status).toBe(400)
      const body = (await response.json()) as { error_code: string; extra?: { offset?: number } }
      expect(body.error_code).toBe('INVALID_MARKUP')
      expect(body.extra?.offset).toBe(offset)
    }
    const read = await post(server.base, '/text_to_speech', flash('<speak>One <audio src="a.wav">two</audio></speak>', { ssml_unknown_elements: 'text' }))
    const plain = await post(server.base, '/text_to_speech', flash('One two'))
    expect(Buffer.from(await read.arrayBuffer()).equals(Buffer.from(await plain.arrayBuffer()))).toBe(true)
  })

  it('a WebSocket context speaks a document sent in pieces as HTTP does, with its marks', async () => {
    const http = (await (await post(server.base, '/text_to_speech/with_timestamps', flash(DOCUMENT))).json()) as Timestamped
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    client.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') }, add_timestamps: true })
    for (let i = 0; i < DOCUMENT.length; i += 10) client.send({ context_id: 'c', transcript: DOCUMENT.slice(i, i + 10) })
    client.send({ context_id: 'c', close_context: true, transcript: '' })
    await client.until(() => client.of('c').filter((event) => event.final === true).length === 2)
    expect(client.audio('c').equals(Buffer.from(http.audio_base64, 'base64'))).toBe(true)
    const marks = client.of('c').flatMap((event) => (event.marks as { name: string; time_ms: number }[] | undefined) ?? [])
    expect(marks.map((mark) => mark.name)).toEqual(['middle', 'end'])
    expect(Math.abs(marks[0]!.time_ms - http.marks![0]!.time_seconds * 1000)).toBeLessThanOrEqual(1)
    client.socket.close()
  })
})
