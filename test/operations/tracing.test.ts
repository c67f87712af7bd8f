import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Route } from '../../lib/server/routes.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, post, start, TEST_KEYS, VOICES_ONLY_KEY, type Running } from '../helpers/server.js'
import { waitUntil } from '../helpers/wait.js'

// An application's ten-line SDK setup (docs/operations.md): the service's spans go to its exporter.
const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()

const engine = await testEngine()
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const traceparent = `00-${TRACE_ID}-${PARENT_ID}-01`
const transcript = 'The birch canoe slid on the smooth planks.'

// An application's own route: a span it starts while handling is a child of the request's span.
const appRoute: Route = {
  method: 'GET',
  path: '/app/traced',
  scope: null,
  versionRequired: false,
  concurrent: false,
  handle: async () => {
    trace.getTracer('app').startSpan('app work').end()
    return { status: 200, json: { ok: true } }
  },
}

describe.each(ADAPTERS)('tracing on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, routes: [appRoute] })
  })
  afterAll(() => server.close())
  beforeEach(() => exporter.reset())

  it('one server span per request, continuing the incoming traceparent, with model, voice type, characters, format, first audio and outcome', async () => {
    const response = await post(server.base, '/text_to_speech/streaming', { model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'mp3', sample_rate: 24000, bit_rate: 64000 } }, { traceparent })
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    await waitUntil(() => exporter.getFinishedSpans().length === 1)
    const [span] = exporter.getFinishedSpans()
    expect(span!.name).toBe('POST /text_to_speech/streaming')
    expect(span!.kind).toBe(SpanKind.SERVER)
    expect(span!.spanContext().traceId).toBe(TRACE_ID)
    expect(span!.parentSpanContext?.spanId).toBe(PARENT_ID)
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/text_to_speech/streaming',
      'http.response.status_code': 200,
      'svc_tts.dialect': 'spec',
      'svc_tts.model': 'svc_flash_v1.5',
      'svc_tts.voice_type': 'PREDEFINED',
      'svc_tts.characters': transcript.length,
      'svc_tts.output_format': 'mp3/pcm_s16le@24000',
      'svc_tts.outcome': 'ok',
    })
    const firstAudio = span!.attributes['svc_tts.time_to_first_audio_ms'] as number
    expect(firstAudio).toBeGreaterThan(0)
    expect(firstAudio).toBeLessThan(5000)
    expect(span!.attributes['svc_tts.audio_seconds']).toBeGreaterThan(1)
    expect(span!.status.code).toBe(SpanStatusCode.UNSET)
    // Nothing of the text or the voice's name is in the span.
    expect(JSON.stringify(span!.attributes)).not.toMatch(/birch|Sarah/)
  })

  it('a refused request has its span too, with its code; a server fault sets the error status', async () => {
    const refused = await post(server.base, '/text_to_speech', { model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') } }, { 'x-api-key': VOICES_ONLY_KEY })
    expect(refused.status).toBe(401)
    await waitUntil(() => exporter.getFinishedSpans().length === 1)
    const [span] = exporter.getFinishedSpans()
    expect(span!.attributes).toMatchObject({ 'svc_tts.outcome': 'INVALID_API_KEY', 'http.response.status_code': 401 })
    expect(span!.status.code).toBe(SpanStatusCode.UNSET)
    expect(span!.spanContext().traceId).not.toBe(TRACE_ID)  // no traceparent: a trace of its own
  })

  it('spans the application starts inside a route are children of the request span', async () => {
    const response = await fetch(`${server.base}/app/traced`, { headers: { traceparent } })
    expect(response.status).toBe(200)
    await waitUntil(() => exporter.getFinishedSpans().length === 2)
    const request = exporter.getFinishedSpans().find((s) => s.name === 'GET /app/traced')!
    const inner = exporter.getFinishedSpans().find((s) => s.name === 'app work')!
    expect(inner.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
    expect(inner.spanContext().traceId).toBe(TRACE_ID)
  })
})
