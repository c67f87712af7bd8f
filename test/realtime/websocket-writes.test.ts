/**
 * How a WebSocket connection's events reach its socket: the messages one turn of the event loop
 * sends go out in one system call, so a context's last audio and its finalOutput share one write
 * (with `ws` alone, each message is a write of its own). The server's writes are counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'
import { everySocketsWrites } from '../helpers/socket-writes.js'

const engine = await testEngine()
const init = { model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } } as const
const FINAL_OUTPUT = JSON.stringify({ context_id: 'c1', audio: '', final: true })
/** The last audioOutput of context c1: audio, then final true. */
const LAST_AUDIO = /\{"context_id":"c1","audio":"[A-Za-z0-9+/=]+","final":true[,}]/

describe.each(ADAPTERS)('a WebSocket connection on %s writes', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it("a context's last audio and its finalOutput in one system call", async () => {
    const port = Number(new URL(server.base).port)
    const recorded = everySocketsWrites((socket) => socket.localPort === port)
    try {
      const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
      client.send(init)
      client.send({ context_id: 'c1', transcript: 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ' })
      client.send({ context_id: 'c1', close_context: true, transcript: '' })
      await client.until(() => client.of('c1').filter((e) => e.final === true).length === 2)
      client.socket.close()
      await client.closed

      const sent = recorded.writes.map((buffers) => Buffer.concat(buffers).toString('latin1'))
      const last = sent.filter((write) => write.includes(FINAL_OUTPUT))
      expect(last).toHaveLength(1)
      expect(last[0]).toMatch(LAST_AUDIO)
      // Every audio message was sent, each whole: the writes hold as many as the client received.
      const audioMessages = sent.join('').match(/"context_id":"c1","audio":"[A-Za-z0-9+/=]+"/g) ?? []
      expect(audioMessages.length).toBe(client.of('c1').filter((e) => e.audio !== '').length)
    } finally {
      recorded.restore()
    }
  })
})
