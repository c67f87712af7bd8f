import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, VOICES_ONLY_KEY, WsClient, type Running } from '../helpers/server.js'
import { promiseHooksOn } from '../helpers/promise-hooks.js'
import { waitUntil } from '../helpers/wait.js'
import { WyomingClient } from '../helpers/wyoming.js'
import { createWyomingServer } from '../../lib/server/index.js'

const engine = await testEngine()
const WS_PATH = '/text_to_speech/websocket/ws'
const METRICS_KEY = 'sk_test_metrics_only_key_0123456789abcdef'
const KEYS = [...TEST_KEYS, { key: METRICS_KEY, name: 'metrics', scopes: ['metrics' as const] }]
const SARAH = voiceId('Sarah')
const TEXTS = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.']
const WS_TEXT = 'It is easy to tell the depth of a well. '

/** Prometheus text exposition as samples: `name{labels}` -> value. */
function samples(exposition: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    found.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return found
}

async function scrape(server: Running, key = METRICS_KEY): Promise<{ text: string; values: Map<string, number> }> {
  const response = await fetch(`${server.base}/metrics`, { headers: { 'x-api-key': key } })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  return { text, values: samples(text) }
}

describe.each(ADAPTERS)('metrics on %s', (adapter) => {
  let server: Running

  beforeAll(async () => {
    server = await start(adapter, { engine, keys: KEYS })
  })
  afterAll(() => server.close())

  it('counts known traffic exactly: requests by route, dialect, model and code, histograms, audio seconds, characters, gauges', async () => {
    let audioSeconds = 0
    for (const transcript of TEXTS) {
      const response = await post(server.base, '/text_to_speech', { model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: SARAH } })
      expect(response.status).toBe(200)
      const wav = decodeWav(Buffer.from(await response.arrayBuffer()))
      audioSeconds += wav.data.length / (wav.bitsPerSample / 8) / wav.sampleRate
    }
    const refused = await post(server.base, '/text_to_speech', { model_id: 'svc_flash_v1.5', transcript: 'Never spoken.', voice: { mode: 'id', id: SARAH } }, { 'x-api-key': VOICES_ONLY_KEY })
    expect(refused.status).toBe(401)

    const client = await WsClient.connect(`${server.ws}${WS_PATH}?api_key=${KEY}&version=v1`)
    client.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: SARAH } })
    client.send({ context_id: 'c1', transcript: WS_TEXT, force: true })
    await client.until(() => client.of('c1').some((e) => typeof e.audio === 'string' && e.audio.length > 0))

    // While the socket is open with its context live.
    const during = (await scrape(server)).values
    expect(during.get('svc_tts_websocket_connections')).toBe(1)
    expect(during.get('svc_tts_realtime_contexts')).toBe(1)
    client.send({ context_id: 'c1', close_context: true, transcript: '' })
    await client.until(() => client.of('c1').some((e) => e.final === true))
    const wsPcm = client.audio('c1')
    client.socket.close()
    await waitUntil(() => server.service.realtimeContexts === 0 && (server.service as unknown as { connections: Map<unknown, unknown> }).connections.size === 0)

    const { text, values } = await scrape(server)
    const route = '/text_to_speech'
    expect(values.get(`svc_tts_requests_total{route="${route}",dialect="spec",model="svc_flash_v1.5",code="ok"}`)).toBe(2)
    expect(values.get(`svc_tts_requests_total{route="${route}",dialect="spec",model="none",code="INVALID_API_KEY"}`)).toBe(1)
    expect(values.get('svc_tts_refusals_total{code="INVALID_API_KEY"}')).toBe(1)
    expect(values.get(`svc_tts_request_duration_seconds_count{route="${route}",dialect="spec"}`)).toBe(3)
    expect(values.get(`svc_tts_time_to_first_audio_seconds_count{route="${route}",model="svc_flash_v1.5"}`)).toBe(2)
    expect(values.get(`svc_tts_time_to_first_audio_seconds_count{route="${WS_PATH}",model="svc_flash_v1.5"}`)).toBe(1)
    // The smallest bucket is 1 ms: first audio is told in milliseconds.
    expect(values.has(`svc_tts_time_to_first_audio_seconds_bucket{le="0.001",route="${route}",model="svc_flash_v1.5"}`)).toBe(true)
    expect(values.get('svc_tts_characters_total{model="svc_flash_v1.5"}')).toBe(TEXTS.join('').length + WS_TEXT.length)
    const wsSeconds = wsPcm.length / 2 / 44100
    expect(values.get('svc_tts_audio_seconds_total{model="svc_flash_v1.5"}')).toBeCloseTo(audioSeconds + wsSeconds, 3)
    expect(values.get('svc_tts_websocket_connections')).toBe(0)
    expect(values.get('svc_tts_realtime_contexts')).toBe(0)
    expect(values.get('svc_tts_engine_active_tasks')).toBe(0)
    expect(values.get('svc_tts_engine_queued_tasks')).toBe(0)
    expect(values.get('svc_tts_ready')).toBe(1)
    // The metrics request itself is the one in flight.
    expect(values.get('svc_tts_requests_in_flight')).toBe(1)
    expect(values.has('process_cpu_seconds_total')).toBe(true)
    expect(values.has('nodejs_eventloop_lag_p99_seconds')).toBe(true)

    // No key, voice or text in any label.
    const labels = text.split('\n').filter((line) => line.includes('{')).map((line) => line.slice(line.indexOf('{'), line.lastIndexOf('}') + 1))
    for (const secret of [KEY, VOICES_ONLY_KEY, METRICS_KEY, 'sk_', SARAH, 'Sarah', 'birch', 'depth']) {
      expect(labels.filter((l) => l.includes(secret))).toEqual([])
    }
  })

  it('is protected: 401 without a key or with a key lacking the metrics scope', async () => {
    expect((await fetch(`${server.base}/metrics`)).status).toBe(401)
    const refused = await fetch(`${server.base}/metrics`, { headers: { 'x-api-key': VOICES_ONLY_KEY } })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error_code: string }).error_code).toBe('INVALID_API_KEY')
  })
})

describe('metrics configured open, or off', () => {
  it('public: served with no key; false: no route', async () => {
    const open = await start('standalone', { engine, keys: KEYS, metrics: { public: true, processMetrics: false } })
    const off = await start('standalone', { engine, keys: KEYS, metrics: false })
    try {
      const response = await fetch(`${open.base}/metrics`)
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(text).toContain('svc_tts_requests_total')
      expect(text).not.toContain('process_cpu_seconds_total')
      const none = await fetch(`${off.base}/metrics`, { headers: { 'x-api-key': METRICS_KEY } })
      expect([none.status, ((await none.json()) as { error_code: string }).error_code]).toEqual([404, 'ROUTE_NOT_FOUND'])
    } finally {
      await open.close()
      await off.close()
    }
  })

  it('two services on one engine count only their own requests', async () => {
    const first = await start('standalone', { engine, keys: KEYS })
    const second = await start('standalone', { engine, keys: KEYS })
    try {
      const response = await post(first.base, '/text_to_speech', { model_id: 'svc_flash_v1.5', transcript: TEXTS[0], voice: { mode: 'id', id: SARAH } })
      await response.arrayBuffer()
      expect((await scrape(first)).values.get('svc_tts_characters_total{model="svc_flash_v1.5"}')).toBe(TEXTS[0]!.length)
      expect((await scrape(second)).values.has('svc_tts_characters_total{model="svc_flash_v1.5"}')).toBe(false)
    } finally {
      await first.close()
      await second.close()
    }
  })
})

describe('Wyoming syntheses in the service\'s metrics', () => {
  it('counts each synthesis and stream as a request of the wyoming dialect, with its first audio, characters and audio', async () => {
    const server = await start('standalone', { engine, keys: KEYS })
    const wyoming = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', observe: (event, signal) => server.service.observeSynthesis(event, 'wyoming', signal) })
    try {
      const client = await WyomingClient.connect(Number(new URL(wyoming.url.replace('tcp:', 'http:')).port))
      client.send('synthesize', { text: TEXTS[0], voice: { name: 'Sarah' } })
      await client.until((e) => e.type === 'audio-stop')
      client.send('synthesize-start', { voice: { name: 'Sarah' } })
      for (const word of TEXTS[1]!.split(' ')) client.send('synthesize-chunk', { text: `${word} ` })
      client.send('synthesize-stop')
      await client.until((e) => e.type === 'synthesize-stopped')
      client.close()
      const { values } = await scrape(server)
      const model = [...values.keys()].find((k) => k.startsWith('svc_tts_requests_total{route="synthesize",dialect="wyoming"'))!
      expect(model).toMatch(/code="ok"/)
      expect(values.get(model)).toBe(1)
      expect([...values.keys()].filter((k) => k.startsWith('svc_tts_requests_total{route="synthesize-stream",dialect="wyoming"') && k.includes('code="ok"')).map((k) => values.get(k))).toEqual([1])
      const firstAudio = [...values].filter(([k]) => k.startsWith('svc_tts_time_to_first_audio_seconds_count{route="synthesize')).map(([, v]) => v)
      expect(firstAudio.reduce((a, b) => a + b, 0)).toBe(2)
      const characters = [...values].filter(([k]) => k.startsWith('svc_tts_characters_total')).reduce((sum, [, v]) => sum + v, 0)
      expect(characters).toBe(TEXTS[0]!.length + TEXTS[1]!.split(' ').map((w) => `${w} `).join('').length)
    } finally {
      await wyoming.close()
      await server.close()
    }
  })
})

describe.each(ADAPTERS)('speech tied to its request on %s', (adapter) => {
  it('by the signal its engine calls carry: HTTP, a browser token, a WebSocket context and Wyoming are each counted, and no promise hook is turned on', async () => {
    expect(await promiseHooksOn()).toBe(false)
    const server = await start(adapter, { engine, keys: KEYS })
    const wyoming = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', observe: (event, signal) => server.service.observeSynthesis(event, 'wyoming', signal) })
    try {
      const request = (transcript: string, voice = SARAH) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voice } })
      expect((await post(server.base, '/text_to_speech', request(TEXTS[0]!))).status).toBe(200)

      const minted = await post(server.base, '/tokens', { voice_id: SARAH })
      const { token } = (await minted.json()) as { token: string }
      const withToken = (body: unknown) => fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })
      const spoken = await withToken(request(TEXTS[1]!))
      expect(spoken.status).toBe(200)
      await spoken.arrayBuffer()
      const refused = await withToken(request('Never spoken.', voiceId('Kal')))
      expect([refused.status, ((await refused.json()) as { error_code: string }).error_code]).toEqual([403, 'TOKEN_RESTRICTED'])

      const client = await WsClient.connect(`${server.ws}${WS_PATH}?api_key=${KEY}&version=v1`)
      client.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: SARAH } })
      client.send({ context_id: 'c1', transcript: WS_TEXT })
      client.send({ context_id: 'c1', close_context: true })
      await client.until(() => client.finished('c1'))
      client.socket.close()

      const wyomingClient = await WyomingClient.connect(Number(new URL(wyoming.url.replace('tcp:', 'http:')).port))
      wyomingClient.send('synthesize', { text: TEXTS[0], voice: { name: 'Sarah' } })
      await wyomingClient.until((e) => e.type === 'audio-stop')
      wyomingClient.close()

      const { values } = await scrape(server)
      const characters = [...values].filter(([k]) => k.startsWith('svc_tts_characters_total')).reduce((sum, [, v]) => sum + v, 0)
      expect(characters).toBe(2 * TEXTS[0]!.length + TEXTS[1]!.length + WS_TEXT.length)
      expect(await promiseHooksOn()).toBe(false)
    } finally {
      await wyoming.close()
      await server.close()
    }
  })
})
