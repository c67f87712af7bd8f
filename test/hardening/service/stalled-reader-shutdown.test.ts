// A client that stops reading a long stream and never closes its connection: the server's graceful
// close cancels the stream at its deadline and then cuts the connection, on every framework,
// instead of waiting on that client for ever.
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS } from '../../helpers/server.js'

const engine = await testEngine()
const LONG = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. '.repeat(400)

describe.each(ADAPTERS)('%s', (adapter) => {
  it('closes within its deadline and grace while a client holds a stream it does not read', async () => {
    const server = await start(adapter, { engine, keys: TEST_KEYS })
    const { port } = new URL(server.base)
    const body = JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: LONG, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 48000 } })
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    socket.write(`POST /text_to_speech/streaming HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    // The first bytes arrive, then the client stops reading (its window and the server's buffers fill) and never closes.
    await new Promise<void>((resolve) => socket.once('data', () => resolve()))
    socket.pause()
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = performance.now()
    await server.close(500)
    expect(performance.now() - started).toBeLessThan(4000)  // 500 ms deadline + 1 s grace, with room for a loaded machine
    socket.destroy()
  }, 20_000)
})
