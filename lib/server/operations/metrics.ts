/**
 * The service's Prometheus metrics, in a registry of its own (two services in one process keep
 * theirs apart). Labels name routes (their templates), dialects, models, voice types, formats and
 * error codes only: never a key, a voice's name or id, or text, so a label's values stay few and
 * nothing private reaches a dashboard.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { NativeCounters } from '../../native.js'

/** From 1 ms: svc-tts's first audio is counted in milliseconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const DURATION_BUCKETS = [...LATENCY_BUCKETS, 30, 60, 300]

/** What the gauges read when Prometheus scrapes. */
export interface MetricsSources {
  counters(): NativeCounters
  requestsInFlight(): number
  webSockets(): number
  realtimeContexts(): number
  ready(): boolean
}

export interface FinishedRequest {
  route: string
  dialect: string
  model: string
  code: string
  seconds: number
}

export class ServiceMetrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'route' | 'dialect' | 'model' | 'code'>
  private readonly duration: Histogram<'route' | 'dialect'>
  private readonly firstAudio: Histogram<'route' | 'model'>
  private readonly audioSeconds: Counter<'model'>
  private readonly characters: Counter<'model'>
  private readonly refusals: Counter<'code'>

  constructor(sources: MetricsSources, processMetrics: boolean) {
    const registers = [this.registry]
    this.requests = new Counter({ name: 'svc_tts_requests_total', help: 'HTTP requests that ran, by route template, dialect, model and outcome code (ok, or the error code)', labelNames: ['route', 'dialect', 'model', 'code'], registers })
    this.duration = new Histogram({ name: 'svc_tts_request_duration_seconds', help: 'HTTP requests from admission to the last byte (or the failure)', labelNames: ['route', 'dialect'], buckets: DURATION_BUCKETS, registers })
    this.firstAudio = new Histogram({ name: 'svc_tts_time_to_first_audio_seconds', help: 'From admission (HTTP) or the opening of a context (WebSocket) to the first audio ready', labelNames: ['route', 'model'], buckets: LATENCY_BUCKETS, registers })
    this.audioSeconds = new Counter({ name: 'svc_tts_audio_seconds_total', help: 'Seconds of audio synthesised (with svc_tts_characters_total and process CPU: the real-time factor)', labelNames: ['model'], registers })
    this.characters = new Counter({ name: 'svc_tts_characters_total', help: 'Characters of text synthesised', labelNames: ['model'], registers })
    this.refusals = new Counter({ name: 'svc_tts_refusals_total', help: 'Requests, handshakes and WebSocket connections refused or ended by a check or a limit, by error code', labelNames: ['code'], registers })
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers, collect() { this.set(read()) } })
    gauge('svc_tts_engine_active_tasks', 'Native synthesis tasks running on the pool', () => sources.counters().activeTasks)
    gauge('svc_tts_engine_live_streams', 'Native speech streams alive', () => sources.counters().liveStreams)
    gauge('svc_tts_engine_queued_tasks', 'Native tasks waiting for a pool thread', () => sources.counters().queuedTasks)
    gauge('svc_tts_engine_unread_audio_bytes', 'Audio made and not yet read, over every stream', () => sources.counters().unreadAudioBytes)
    gauge('svc_tts_requests_in_flight', 'HTTP requests running (a stream counts until its last byte)', sources.requestsInFlight)
    gauge('svc_tts_websocket_connections', 'Realtime WebSocket connections open', sources.webSockets)
    gauge('svc_tts_realtime_contexts', 'Live contexts over every WebSocket connection', sources.realtimeContexts)
    gauge('svc_tts_ready', '1 while the service takes traffic (what /readyz says), 0 while starting or draining', () => (sources.ready() ? 1 : 0))
    if (processMetrics) collectDefaultMetrics({ register: this.registry })
  }

  requestFinished({ route, dialect, model, code, seconds }: FinishedRequest): void {
    this.requests.inc({ route, dialect, model, code })
    this.duration.observe({ route, dialect }, seconds)
  }

  refused(code: string): void {
    this.refusals.inc({ code })
  }

  firstAudioReady(route: string, model: string, seconds: number): void {
    this.firstAudio.observe({ route, model }, seconds)
  }

  synthesised(model: string, audio: { seconds?: number; characters?: number }): void {
    if (audio.seconds) this.audioSeconds.inc({ model }, audio.seconds)
    if (audio.characters) this.characters.inc({ model }, audio.characters)
  }

  /** The exposition and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
