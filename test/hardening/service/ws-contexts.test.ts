// Issue 20, cases 15 and 16: a WebSocket context refused for concurrency was still charged its
// characters, and its error carried no context_id; contexts on an open socket did not count against
// the key's request rate. A context is now a request: admitted (the key's rate, a concurrency slot)
// before its text is charged, and every error of a context names it.
import { afterAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, WsClient, type Running } from '../../helpers/server.js'

const engine = await testEngine()
const init = { model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } }
const LONG = 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background. '.repeat(20)

describe.each(ADAPTERS)('WebSocket contexts as requests on %s', (adapter) => {
  const servers: Running[] = []
  const connect = async (limits: Record<string, number>) => {
    const server = await start(adapter, { engine, keys: TEST_KEYS, limits })
    servers.push(server)
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    client.send(init)
    return client
  }
  afterAll(async () => {
    for (const server of servers) await server.close(0)
  })
  const errorOf = (client: WsClient, code: string) => client.until(() => client.events.some((e) => e.error_code === code)).then(() => client.events.find((e) => e.error_code === code)!)

  it('a context refused for concurrency costs no characters, and every error of a context names it', async () => {
    // one (1940 characters) and three (147) fit the period; with two's 1800 charged as well they would not.
    const client = await connect({ concurrentRequests: 1, charactersPerPeriod: 3800 })
    client.send({ context_id: 'one', transcript: LONG })
    await client.until(() => client.of('one').length > 0)
    client.send({ context_id: 'two', transcript: 'x '.repeat(900) })
    expect(await errorOf(client, 'TOO_MANY_CONCURRENT_REQUESTS')).toMatchObject({ context_id: 'two', extra: { retry_after_seconds: 1 } })
    client.send({ context_id: 'one', cancel: true })
    await client.until(() => client.of('one').some((e) => e.cancelled === true))
    client.send({ context_id: 'three', transcript: 'Three is spoken now. '.repeat(7) })
    client.send({ context_id: 'three', close_context: true, transcript: '' })
    await client.until(() => client.of('three').filter((e) => e.final === true).length === 2)
    expect(client.events.filter((e) => e.error_code).map((e) => e.error_code)).toEqual(['TOO_MANY_CONCURRENT_REQUESTS'])

    // Past the usage now: the error of a live context's text, and of a malformed message to a context, carry its id.
    client.send({ context_id: 'four', transcript: 'Four. ' })
    client.send({ context_id: 'four', transcript: 'y '.repeat(900) })
    expect(await errorOf(client, 'USAGE_LIMIT_EXCEEDED')).toMatchObject({ context_id: 'four' })
    client.send({ context_id: 'five', transcript: 5 })
    expect(await errorOf(client, 'INVALID_REQUEST')).toMatchObject({ context_id: 'five' })
    client.send({ context_id: 'ghost', cancel: true })
    expect(await errorOf(client, 'CONTEXT_NOT_FOUND')).toMatchObject({ context_id: 'ghost' })
    client.socket.close()
  })

  it("each new context, and each re-initialised one, is a request against the key's rate", async () => {
    // The handshake, context a, a re-initialised with another voice, context b: the fifth request is refused.
    const client = await connect({ requestsPerWindow: 4 })
    client.send({ context_id: 'a', transcript: 'First. ' })
    client.send({ context_id: 'a', transcript: 'Again. ', voice: { mode: 'id', id: voiceId('Richard') } })
    client.send({ context_id: 'b', transcript: 'Second. ' })
    client.send({ context_id: 'c', transcript: 'Third. ' })
    const refusal = await errorOf(client, 'RATE_LIMIT_EXCEEDED')
    expect(refusal).toMatchObject({ context_id: 'c' })
    expect(refusal.extra).toMatchObject({ retry_after_seconds: expect.any(Number) })
    expect(client.events.filter((e) => e.error_code).length).toBe(1)
    // Text to a live context is no new request.
    client.send({ context_id: 'b', transcript: 'More for b. ' })
    client.send({ context_id: 'b', close_context: true, transcript: '' })
    await client.until(() => client.of('b').filter((e) => e.final === true).length === 2)
    expect(client.events.filter((e) => e.error_code).length).toBe(1)
    client.socket.close()
  })
})
