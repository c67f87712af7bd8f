/**
 * One realtime connection, independent of any transport: the SPEC's context table (section 3)
 * as method calls, with the service's messages emitted as 'message' events and the end of the
 * connection as 'close'. Each context generation is a writable speech session of the engine;
 * a generation replaced (re-initialised) or cancelled never sends another byte, because every
 * chunk is checked against the context's current generation right before it is emitted.
 * What a client may make it do is bounded before a frame is parsed (intake.ts); a connection that
 * passes a bound, or whose credentials stop holding, ends with the error as its 'close' reason.
 */
import { EventEmitter } from 'node:events'
import { toAlignment } from '../engine/alignment.js'
import type { Engine, SpeechChunk, SpeechSession } from '../engine/engine.js'
import type { ParsedSpeechRequest } from '../engine/requests.js'
import { sessionRequestFrom, type ResolvedRequest } from '../engine/resolve.js'
import { TtsError, isTtsError } from '../errors.js'
import { DEFAULT_INTAKE_LIMITS, FrameIntake, frameCost, type IntakeLimits } from './intake.js'
import {
  DEFAULT_CONTEXT_ID,
  parseClientMessage,
  type AudioOutput,
  type CancelContext,
  type ClientMessage,
  type CloseContext,
  type ErrorEvent,
  type InitializeConnection,
  type ServerMessage,
  type TextMessage,
} from './messages.js'

export interface RealtimeLimits extends IntakeLimits {
  /** Live contexts on one connection (default 64). */
  maxContexts: number
  /** Text one context generation may receive, in characters (default 100 000). */
  maxContextChars: number
  /** A connection with no message and no live context for this long is closed (default 60 s). */
  idleTimeoutMs: number
}

export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = { maxContexts: 64, maxContextChars: 100_000, idleTimeoutMs: 60_000, ...DEFAULT_INTAKE_LIMITS }

/** What the host (a server) decides: its own bounds on messages, credentials, admission (concurrency) and usage counting. */
export interface RealtimeHooks {
  /** Called with each frame's cost in messages (intake.ts) before it is queued; throws to refuse it, which ends the connection. */
  admitMessage?(cost: number): void
  /** Called when a context generation starts, before anything is counted; throws when the credentials no longer hold, which ends the connection. */
  authorize?(): void
  /** Called when a context generation starts; returns the function that ends its admission. */
  admitContext?(): Promise<() => void>
  /** Called with each piece of text before it is synthesised. */
  chargeText?(characters: number): Promise<void>
  /** Resolves when the transport can take more audio; synthesis of the waiting context pauses meanwhile. */
  writable?(): Promise<void> | undefined
  /** The signal a context's speech is opened with: one the host has bound to its own bookkeeping (a server counts the speech to its metrics and holds it to a token's binding). */
  contextSignal?(): AbortSignal
}

export interface RealtimeConnectionOptions extends RealtimeHooks {
  /** Any model id: the client's requests are checked at run time. */
  engine: Engine<string>
  limits?: Partial<RealtimeLimits>
  /** A frame's text as the messages it asks for, in order (default: the SPEC's messages, one per frame); throws the refusal. */
  parse?(text: string): ClientMessage[]
  /** Whether each completed flush (a message's `force`) is told to the client, once the audio of the text before it is out. */
  flushMarkers?: boolean
}

interface Generation {
  speech: SpeechSession
  chars: number
  closing: boolean
  cancelled: boolean
  release: () => void
  done: Promise<void>
}

/** What initializeConnection said: the request every context speaks with unless it overrides a field. */
interface Connection {
  request: ParsedSpeechRequest
  /** The request resolved once, for every context that keeps it as it is. */
  resolved: ResolvedRequest
  addTimestamps: boolean
}

/** 'close' carries the error that ended the connection, or nothing when it ended as asked (or its transport went away). */
export class RealtimeConnection extends EventEmitter<{ message: [ServerMessage]; close: [error?: TtsError] }> {
  private connection: Connection | undefined
  private readonly contexts = new Map<string, Generation>()
  private readonly limits: RealtimeLimits
  private readonly intake: FrameIntake
  private queue: Promise<void> = Promise.resolve()
  private idleTimer: NodeJS.Timeout | undefined
  private state: 'open' | 'closing' | 'closed' = 'open'

  constructor(private readonly options: RealtimeConnectionOptions) {
    super()
    this.limits = { ...DEFAULT_REALTIME_LIMITS, ...options.limits }
    this.intake = new FrameIntake(this.limits)
    this.armIdleTimer()
  }

  /** Live contexts (initialised and not yet finished). */
  get liveContexts(): number {
    return this.contexts.size
  }

  /**
   * One frame from the client, text or binary (which the protocol refuses): admitted by the
   * bounds, then parsed and handled after every earlier frame. Frames after the end cost nothing.
   */
  receive(frame: string | Uint8Array): void {
    if (this.state === 'closed') return
    const bytes = typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength
    try {
      this.intake.admit(bytes)
      this.options.admitMessage?.(frameCost(bytes))
    } catch (error) {
      this.fail(error as TtsError)
      return
    }
    this.armIdleTimer()
    this.enqueue(bytes, async () => {
      if (typeof frame !== 'string') throw new TtsError('INVALID_MESSAGE', 'messages are JSON text frames')
      const messages = this.options.parse ? this.options.parse(frame) : [parseClientMessage(frame)]
      for (const message of messages) await this.handle(message)
    })
  }

  private handle(parsed: ClientMessage): Promise<void> {
    switch (parsed.kind) {
      case 'initializeConnection':
        return this.initializeConnection(parsed.message)
      case 'text':
        return this.inContext(parsed.message, () => this.text(parsed.message))
      case 'closeContext':
        return this.inContext(parsed.message, () => this.closeContext(parsed.message))
      case 'cancel':
        return this.inContext(parsed.message, () => this.cancelContext(parsed.message))
      case 'closeConnection':
        return this.closeConnection()
    }
  }

  async initializeConnection(message: InitializeConnection): Promise<void> {
    if (this.connection) throw new TtsError('INVALID_MESSAGE', 'the connection is already initialised')
    const { add_timestamps: addTimestamps = false, ...fields } = message
    // Each context's audio is a stream of messages: raw PCM, or a compressed stream whose chunks join into a file.
    if (fields.output_format?.container === 'wav') {
      throw new TtsError('FORMAT_NOT_RECOGNIZED', 'the WebSocket sends raw or compressed audio (raw, mp3, ogg, flac), not wav')
    }
    const request = sessionRequestFrom(fields)
    const resolved = await this.options.engine.resolve(request, { container: 'raw' })
    this.connection = { request, resolved, addTimestamps }
  }

  /** initializeContext or sendText: a context that is not live, or one given overrides, starts a new generation. */
  async text(message: TextMessage): Promise<void> {
    const connection = this.requireConnection()
    const id = message.context_id ?? DEFAULT_CONTEXT_ID
    const current = this.contexts.get(id)
    const overrides = message.voice !== undefined || message.model_id !== undefined || message.language !== undefined || message.speed !== undefined ||
      message.pronunciation_dictionaries !== undefined
    if (!current || current.closing || overrides) {
      await this.initializeContext(id, connection, message)
      return
    }
    await this.write(id, current, message.transcript, message.force ?? false)
  }

  async closeContext(message: CloseContext): Promise<void> {
    this.requireConnection()
    const id = message.context_id ?? DEFAULT_CONTEXT_ID
    const generation = this.contexts.get(id)
    if (!generation) throw new TtsError('CONTEXT_NOT_FOUND', `no live context '${id}'`, { extra: { context_id: id } })
    generation.closing = true
    generation.speech.end()
  }

  /** Extension (barge-in): stops the context at once; its finalOutput (cancelled) is the last thing sent for it. */
  async cancelContext(message: CancelContext): Promise<void> {
    this.requireConnection()
    const id = message.context_id ?? DEFAULT_CONTEXT_ID
    const generation = this.contexts.get(id)
    if (!generation) throw new TtsError('CONTEXT_NOT_FOUND', `no live context '${id}'`, { extra: { context_id: id } })
    this.retire(id, generation)
    this.emit('message', { context_id: id, audio: '', final: true, cancelled: true })
  }

  /** Ends every context gracefully (what is buffered is spoken), then closes. */
  async closeConnection(): Promise<void> {
    if (this.state !== 'open') return
    this.state = 'closing'
    const pending = [...this.contexts.values()].map((generation) => {
      generation.closing = true
      generation.speech.end()
      return generation.done
    })
    await Promise.all(pending)
    this.finish()
  }

  /** The transport is gone: every context stops now. */
  destroy(): void {
    for (const [id, generation] of this.contexts) this.retire(id, generation)
    this.finish()
  }

  /** Ends the connection for `error` (a bound passed, a revoked key): its error event, then every context stops. */
  fail(error: TtsError, contextId?: string): void {
    if (this.state === 'closed') return
    this.emitError(error, contextId)
    for (const [id, generation] of this.contexts) this.retire(id, generation)
    this.finish(error)
  }

  private finish(error?: TtsError): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    clearTimeout(this.idleTimer)
    this.emit('close', error)
  }

  private requireConnection(): Connection {
    if (this.state !== 'open') throw new TtsError('INVALID_MESSAGE', 'the connection is closing')
    if (!this.connection) throw new TtsError('INVALID_MESSAGE', 'the first message must be initializeConnection (model_id, voice)')
    return this.connection
  }

  /** Runs the handling of a message for a context: its errors carry that context's id. */
  private async inContext(message: { context_id?: string | undefined }, handle: () => Promise<void>): Promise<void> {
    try {
      await handle()
    } catch (error) {
      this.emitError(error, message.context_id ?? DEFAULT_CONTEXT_ID)
    }
  }

  private async initializeContext(id: string, connection: Connection, message: TextMessage): Promise<void> {
    const previous = this.contexts.get(id)
    if (previous) this.retire(id, previous)
    else if (this.contexts.size >= this.limits.maxContexts) {
      throw new TtsError('CONTEXT_LIMIT_EXCEEDED', `a connection has at most ${this.limits.maxContexts} live contexts`, { extra: { context_id: id } })
    }
    this.checkLength(id, message.transcript.length)
    try {
      this.options.authorize?.()
    } catch (error) {
      this.fail(error as TtsError, id)
      return
    }
    // Admitted before it is charged: a context refused (concurrency, request rate) costs no characters.
    const release = (await this.options.admitContext?.()) ?? (() => {})
    let speech: SpeechSession
    try {
      await this.options.chargeText?.(message.transcript.length)
      const { model_id, voice, language, speed, pronunciation_dictionaries } = message
      const overridden = model_id !== undefined || voice !== undefined || language !== undefined || speed !== undefined || pronunciation_dictionaries !== undefined
      const request = overridden ? sessionRequestFrom(connection.request, { model_id, voice, language, speed, pronunciation_dictionaries }) : connection.resolved
      const signal = this.options.contextSignal?.()
      speech = await this.options.engine.open(request, signal && { signal })
    } catch (error) {
      release()
      throw error
    }
    if (this.state !== 'open') {
      // The connection began to end while this context was being opened: it never starts.
      speech.abort()
      release()
      throw new TtsError('INVALID_MESSAGE', 'the connection is closing')
    }
    const generation: Generation = { speech, chars: message.transcript.length, closing: false, cancelled: false, release, done: Promise.resolve() }
    this.contexts.set(id, generation)
    generation.done = this.pump(id, generation, connection)
    if (message.transcript) speech.write(message.transcript)
    if (message.force) speech.flush()
  }

  private async write(id: string, generation: Generation, text: string, force: boolean): Promise<void> {
    this.checkLength(id, generation.chars + text.length)
    await this.options.chargeText?.(text.length)
    if (generation.cancelled) return
    generation.chars += text.length
    generation.speech.write(text)
    if (force) generation.speech.flush()
  }

  private checkLength(id: string, chars: number): void {
    if (chars > this.limits.maxContextChars) {
      throw new TtsError('TRANSCRIPT_TOO_LONG', `a context takes at most ${this.limits.maxContextChars} characters of text`, { extra: { context_id: id } })
    }
  }

  /** Stops a generation; nothing it produces afterwards is sent. */
  private retire(id: string, generation: Generation): void {
    generation.cancelled = true
    generation.speech.abort()
    generation.release()
    if (this.contexts.get(id) === generation) this.contexts.delete(id)
  }

  /** Sends a generation's audio as it comes, pausing while the transport is full. */
  private async pump(id: string, generation: Generation, connection: Connection): Promise<void> {
    let held: SpeechChunk | undefined
    const send = (chunk: SpeechChunk, final: boolean) => {
      this.emit('message', this.audioOutput(id, chunk, final, connection))
      this.emitFlushes(id, chunk)
    }
    try {
      for await (const chunk of generation.speech) {
        // A compressed chunk the encoder kept whole for later has nothing to send but its words.
        const speaks = chunk.audio.length > 0 || (connection.addTimestamps && (chunk.words.length > 0 || chunk.marks !== undefined))
        if (!speaks && !(this.options.flushMarkers && chunk.flushes)) continue
        await this.options.writable?.()
        if (generation.cancelled) return
        // Once the context is closing, one chunk is held back so the last one can carry final: true.
        if (held) send(held, false)
        held = undefined
        if (!speaks) this.emitFlushes(id, chunk)
        else if (generation.closing) held = chunk
        else send(chunk, false)
      }
      // The context's last messages wait for room like its audio, so a client that stops reading holds them back, not the server.
      await this.options.writable?.()
      if (generation.cancelled) return
      if (held) send(held, true)
      else this.emit('message', { context_id: id, audio: '', final: true })
      this.emit('message', { context_id: id, audio: '', final: true })
    } catch (error) {
      if (!generation.cancelled) this.emitError(error, id)
    } finally {
      generation.release()
      if (this.contexts.get(id) === generation) this.contexts.delete(id)
    }
  }

  private emitFlushes(id: string, chunk: SpeechChunk): void {
    if (this.options.flushMarkers && chunk.flushes) this.emit('message', { context_id: id, flushed: chunk.flushes })
  }

  private audioOutput(id: string, chunk: SpeechChunk, final: boolean, connection: Connection): AudioOutput {
    const output: AudioOutput = { context_id: id, audio: chunk.audio.toString('base64'), final }
    if (connection.addTimestamps) output.alignment = toAlignment(chunk.words)
    if (connection.addTimestamps && chunk.marks) output.marks = chunk.marks.map((mark) => ({ name: mark.name, time_ms: mark.timeMs }))
    return output
  }

  private enqueue(bytes: number, task: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      try {
        if (this.state !== 'closed') await task()
      } catch (error) {
        this.emitError(error)
      } finally {
        this.intake.handled(bytes)
      }
    })
  }

  private emitError(error: unknown, contextId?: string): void {
    if (this.state === 'closed') return
    const event: ErrorEvent = isTtsError(error) && error.status < 500
      ? error.toJSON()
      : { error_code: isTtsError(error) ? error.code : 'INTERNAL_ERROR', message: 'internal error' }
    const id = contextId ?? (isTtsError(error) ? (error.extra?.context_id as string | undefined) : undefined)
    this.emit('message', id === undefined ? event : { ...event, context_id: id })
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer)
    if (this.state === 'closed') return
    this.idleTimer = setTimeout(() => {
      if (this.contexts.size > 0) return this.armIdleTimer()  // speaking counts as activity
      this.emit('message', { error_code: 'IDLE_TIMEOUT', message: `no message for ${this.limits.idleTimeoutMs} ms` })
      this.destroy()
    }, this.limits.idleTimeoutMs)
    this.idleTimer.unref()
  }
}
