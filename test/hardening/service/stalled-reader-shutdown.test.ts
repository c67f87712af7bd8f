// A client that stops reading a long stream and never closes its connection: the server's graceful
// close cancels the stream at its deadline and then cuts the connection, on every framework,
// instead of waiting on that client for ever.
import { connect, type AddressInfo, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS } from '../../helpers/server.js'
import { waitUntil } from '../../helpers/wait.js'

const engine = await testEngine()
const LONG = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. '.repeat(250)

/** A client that asks for a long stream (twenty minutes of float audio, far more than any buffer holds; under the 30 minutes a request may make). */
function holdStream(port: number): Socket {
  const body = JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: LONG, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 48000 } })
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write(`POST /text_to_speech/streaming HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  return socket
}

describe.each(ADAPTERS)('%s', (adapter) => {
  it('closes within its deadline and grace while a client holds a stream it does not read', async () => {
    const server = await start(adapter, { engine, keys: TEST_KEYS })
    const { port } = new URL(server.base)
    const socket = holdStream(Number(port))
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

describe('the Fastify plugin in an app of its own', () => {
  // Fastify fails close() when a preClose hook outlasts its pluginTimeout: the plugin's wait for live streams must end before it.
  it("fits its default deadline inside the app's pluginTimeout, so app.close() succeeds while a client holds a stream", async () => {
    const { default: Fastify } = await import('fastify')
    const { default: ttsPlugin } = await import('../../../lib/server/fastify.js')
    const app = Fastify({ pluginTimeout: 1500, forceCloseConnections: true })
    await app.register(ttsPlugin, { engine, keys: TEST_KEYS })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const socket = holdStream((app.server.address() as AddressInfo).port)
    await new Promise<void>((resolve) => socket.once('data', () => resolve()))
    socket.pause()
    expect(app.tts.requestsInFlight).toBe(1)
    const started = performance.now()
    await app.close()
    expect(performance.now() - started).toBeLessThan(5000)  // the wait is 500 ms, not the 10 s default; room for a loaded machine
    expect(await waitUntil(() => app.tts.requestsInFlight === 0 && engine.counters().activeTasks === 0, 2000)).toBe(true)
    socket.destroy()
  }, 20_000)

  it("refuses at registration a deadline that cannot end before the app's pluginTimeout", async () => {
    const { default: Fastify } = await import('fastify')
    const { default: ttsPlugin } = await import('../../../lib/server/fastify.js')
    const app = Fastify({ pluginTimeout: 2000 })
    await expect(app.register(ttsPlugin, { engine, keys: TEST_KEYS, shutdownDeadlineMs: 5000 })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('pluginTimeout') })
    await app.close()
    const unbounded = Fastify({ pluginTimeout: 0 })
    await unbounded.register(ttsPlugin, { engine, keys: TEST_KEYS, shutdownDeadlineMs: 60_000 })
    await unbounded.close()
  })
})
