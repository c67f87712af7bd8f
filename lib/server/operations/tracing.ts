/**
 * One OpenTelemetry span per request, through @opentelemetry/api alone: without an SDK registered
 * by the application every call here is a no-op. The caller's `traceparent` (and `tracestate`) is
 * continued with whatever propagator the application registered (W3C trace context by default).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api'

const tracer = trace.getTracer('svc-tts')

/** What a request's span reports when it ends. */
export interface SpanOutcome {
  model?: string
  voiceType?: string
  characters: number
  format?: string
  firstAudioMs?: number
  audioSeconds: number
  /** 'ok', or the error code. */
  code: string
  status: number
}

export function startRequestSpan(method: string, route: string, dialect: string, headers: IncomingHttpHeaders): Span {
  const parent = propagation.extract(ROOT_CONTEXT, headers)
  return tracer.startSpan(
    `${method} ${route}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'http.route': route, 'svc_tts.dialect': dialect } },
    parent,
  )
}

export function endRequestSpan(span: Span, outcome: SpanOutcome): void {
  if (outcome.model !== undefined) span.setAttribute('svc_tts.model', outcome.model)
  if (outcome.voiceType !== undefined) span.setAttribute('svc_tts.voice_type', outcome.voiceType)
  if (outcome.format !== undefined) span.setAttribute('svc_tts.output_format', outcome.format)
  if (outcome.firstAudioMs !== undefined) span.setAttribute('svc_tts.time_to_first_audio_ms', outcome.firstAudioMs)
  span.setAttributes({
    'svc_tts.characters': outcome.characters,
    'svc_tts.audio_seconds': outcome.audioSeconds,
    'svc_tts.outcome': outcome.code,
    'http.response.status_code': outcome.status,
  })
  // A server span fails on the server's faults only; a refused request is the client's.
  if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.code })
  span.end()
}

/** Runs `work` with the span as the active one, so spans the application starts inside are its children. */
export function withSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work)
}
