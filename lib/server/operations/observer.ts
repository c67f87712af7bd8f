/**
 * Ties the engine's speech to the request it serves, for metrics and traces. A request (or a
 * WebSocket context) is bound to the signal its engine calls carry; the engine publishes each
 * session's start on its speech channel with that signal (lib/engine/speech-events.ts), so the
 * session is tied to the request there, and its later text and audio events are counted to it.
 * Speech made outside this service's requests (the application's own calls, another service on
 * the same engine) is not this service's to count. The binding is by signal, not by async context
 * (AsyncLocalStorage), whose promise hooks every promise of the process would pay for.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Span } from '@opentelemetry/api'
import { SPEECH_CHANNEL, type SpeechEvent } from '../../engine/speech-events.js'
import type { ServiceMetrics } from './metrics.js'
import { endRequestSpan, startRequestSpan, withSpan } from './tracing.js'

/** One request (or realtime context) as it is observed. */
export interface Observation {
  readonly route: string
  readonly dialect: string
  readonly started: number
  readonly span?: Span
  model?: string
  voiceType?: string
  format?: string
  characters: number
  audioSeconds: number
  firstAudioMs?: number
}

interface Session {
  model: string
  observation: Observation
  heard: boolean
}

export class ServiceObserver {
  private readonly bound = new WeakMap<AbortSignal, Observation>()
  private readonly sessions = new WeakMap<object, Session>()
  private subscribed = false

  constructor(private readonly metrics: ServiceMetrics | undefined) {}

  /** Starts listening to the engine (the service does it when it is made, and stops at close). */
  subscribe(): void {
    if (this.subscribed) return
    this.subscribed = true
    SPEECH_CHANNEL.subscribe(this.onSpeech)
  }

  unsubscribe(): void {
    if (!this.subscribed) return
    this.subscribed = false
    SPEECH_CHANNEL.unsubscribe(this.onSpeech)
  }

  /** A request admitted: its span starts, continuing the caller's trace. */
  begin(method: string, route: string, dialect: string, headers: IncomingHttpHeaders): Observation {
    return { route, dialect, started: performance.now(), span: startRequestSpan(method, route, dialect, headers), characters: 0, audioSeconds: 0 }
  }

  /** A realtime context: observed for its first audio, characters and audio (no span, no request count). */
  beginContext(route: string, dialect: string): Observation {
    return { route, dialect, started: performance.now(), characters: 0, audioSeconds: 0 }
  }

  /** The speech of engine calls made with `signal` is counted to `observation`. */
  bind(observation: Observation, signal: AbortSignal): void {
    this.bound.set(signal, observation)
  }

  /** Runs the request's work with its span as the active one (so that the application's own spans nest under it). */
  within<T>(observation: Observation, work: () => T): T {
    return observation.span ? withSpan(observation.span, work) : work()
  }

  /** The request is over: counted, and its span ended. */
  end(observation: Observation, status: number, code: string): void {
    const model = observation.model ?? 'none'
    this.metrics?.requestFinished({ route: observation.route, dialect: observation.dialect, model, code, seconds: (performance.now() - observation.started) / 1000 })
    if (observation.span) endRequestSpan(observation.span, { ...observation, code, status })
  }

  private readonly onSpeech = (message: unknown): void => {
    const event = message as SpeechEvent
    if (event.type === 'start') {
      const observation = event.caller && this.bound.get(event.caller)
      if (!observation) return
      observation.model ??= event.model
      observation.voiceType ??= event.voiceType
      observation.format ??= event.format
      this.sessions.set(event.session, { model: event.model, observation, heard: false })
      return
    }
    const session = this.sessions.get(event.session)
    if (!session) return
    const { observation } = session
    if (event.type === 'text') {
      this.metrics?.synthesised(session.model, { characters: event.characters })
      observation.characters += event.characters
      return
    }
    this.metrics?.synthesised(session.model, { seconds: event.seconds })
    observation.audioSeconds += event.seconds
    if (session.heard) return
    session.heard = true
    const ms = performance.now() - observation.started
    this.metrics?.firstAudioReady(observation.route, session.model, ms / 1000)
    observation.firstAudioMs ??= Math.round(ms * 100) / 100
  }
}
