// A streamed response whose client goes away after the request is admitted but before the adapter
// pulls the first chunk (a race any adapter can lose): the request must still end, so that it
// gives back its slot and no shutdown waits on it until the deadline.
import { describe, expect, it } from 'vitest'
import { TtsService } from '../../lib/server/service.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { KEY, TEST_KEYS } from '../helpers/server.js'
import { waitUntil } from '../helpers/wait.js'

const engine = await testEngine()
const LONG = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. '.repeat(50)
const HEADERS = { 'x-api-key': KEY, version: 'v1', 'content-type': 'application/json' }
const BODY = Buffer.from(JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: LONG, voice: { mode: 'id', id: voiceId('Sarah') } }))

async function admittedStream(service: TtsService, signal: AbortSignal) {
  const route = service.routes.find((r) => r.method === 'POST' && r.path === '/text_to_speech/streaming')!
  const admitted = await service.admit(route, HEADERS, {}, signal)
  const response = await admitted.run(BODY)
  expect(response.status).toBe(200)
  expect('stream' in response).toBe(true)
  return response
}

describe('a stream dropped before its first pull', () => {
  it('ends when its client goes away: its slot comes back and its synthesis stops', async () => {
    const service = new TtsService({ engine, keys: TEST_KEYS, limits: { concurrentRequests: 1 } })
    const client = new AbortController()
    await admittedStream(service, client.signal)
    expect(service.requestsInFlight).toBe(1)
    client.abort()
    expect(service.requestsInFlight).toBe(0)
    expect(await waitUntil(() => engine.counters().activeTasks === 0, 2000)).toBe(true)
    // The key's one concurrency slot is free again.
    await admittedStream(service, new AbortController().signal)
    await service.close(0)
  })

  it('does not hold a graceful close to its deadline once the close cancels it', async () => {
    const service = new TtsService({ engine, keys: TEST_KEYS })
    const response = await admittedStream(service, new AbortController().signal)
    await service.close(0)
    expect(service.requestsInFlight).toBe(0)
    // An adapter that pulls it after all sees the cancellation, not a complete stream of no audio.
    const stream = (response as { stream: AsyncIterable<Buffer> }).stream
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'SERVER_CLOSING' })
    const started = performance.now()
    await service.close(5000)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
