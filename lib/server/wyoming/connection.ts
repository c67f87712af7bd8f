/**
 * One Wyoming connection (a TCP or Unix socket, or stdin and stdout): events in, events out.
 * Events are handled in order; a `synthesize` is answered whole before the next event is handled,
 * while a stream's chunks are taken as they come, its sentences spoken as they complete. Audio is
 * pulled from the engine only as fast as the connection takes it; the connection going away (or
 * ending its side) cancels its native work.
 */
import type { Readable, Writable } from 'node:stream'
import type { Engine } from '../../engine/engine.js'
import { isTtsError, TtsError } from '../../errors.js'
import { AudioOut, type Send } from './audio-out.js'
import {
  errorEvent,
  parseEvent,
  SYNTHESIZE_STOPPED,
  synthesizeChunkSchema,
  synthesizeSchema,
  synthesizeStartSchema,
  type AudioFormat,
  type Synthesize,
  type SynthesizeStart,
  type SynthesizeVoice,
} from './events.js'
import { encodeEvent, FrameReader, type FrameLimits, type WyomingEvent } from './framing.js'
import { infoEvent } from './info.js'
import { SpeechStream } from './speech-stream.js'
import { WyomingVoices, type Speaking } from './voices.js'

/** One structured entry per synthesis (a `synthesize`, or a whole stream). */
export interface WyomingLog {
  /** The client: `address:port`, a Unix socket's path, or `stdio`. */
  client: string
  event: 'synthesize' | 'synthesize-stream'
  voice_id?: string
  model_id?: string
  characters: number
  audio_seconds: number
  duration_ms: number
  error_code?: string
}

/**
 * A host's watch over one synthesis (the service's metrics and spans): made for the signal the
 * synthesis's engine calls carry, it runs their work `within` it, and it is told the outcome (`ok`
 * or the error code) at the end.
 */
export interface ObservedSynthesis {
  within<T>(work: () => T): T
  end(code: string): void
}

export interface ConnectionOptions {
  engine: Engine<string>
  limits: FrameLimits
  samplesPerChunk: number
  /** The voice of a synthesis that names none (a voice name or a language code); default: the first voice. */
  defaultVoice?: string
  /** A stream's text waiting to be spoken before the connection stops reading, and its longest unfinished sentence. */
  maxPendingChars: number
  client: string
  log?: (entry: WyomingLog) => void
  observe?: (event: WyomingLog['event'], signal: AbortSignal) => ObservedSynthesis
}

/** Events waiting to be handled past which the connection stops reading until they are. */
const INBOX_BOUND = 16

/** How long a closed socket that does not take its last bytes is kept before it is cut. */
const CLOSE_GRACE_MS = 1000

function asTtsError(error: unknown): TtsError {
  return isTtsError(error) ? error : new TtsError('INTERNAL_ERROR', error instanceof Error ? error.message : String(error), { cause: error })
}

function formatOf(speaking: Speaking): AudioFormat {
  return { rate: speaking.sampleRate, width: 2, channels: 1 }
}

interface OpenStream {
  stream: SpeechStream
  done: Promise<void>
}

export class WyomingConnection {
  private readonly reader: FrameReader
  /** Aborted when the connection is over: every synthesis of the connection runs under it. */
  private readonly gone = new AbortController()
  private readonly inbox: WyomingEvent[] = []
  private handling = false
  /** The handling of the inbox, while events are being handled. */
  private handled: Promise<void> = Promise.resolve()
  private open: OpenStream | undefined
  /** Closing once idle: the work under way finishes, no new synthesis starts. */
  private closing = false
  private readonly closedPromise: Promise<void>
  private markClosed!: () => void

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: ConnectionOptions,
  ) {
    this.reader = new FrameReader(options.limits)
    this.closedPromise = new Promise((resolve) => (this.markClosed = resolve))
    input.on('data', (bytes: Buffer) => this.receive(bytes))
    // The reference servers stop at the end of their input: a client that ends its side is gone.
    input.once('end', () => this.close())
    input.once('error', () => this.close())
    input.once('close', () => this.close())
    output.once('error', () => this.close())
    output.once('close', () => this.close())
  }

  /** Resolves once the connection is over and its work stopped. */
  get closed(): Promise<void> {
    return this.closedPromise
  }

  /** Ends the connection now: its syntheses are cancelled. */
  close(): void {
    if (this.gone.signal.aborted) return
    this.gone.abort(new TtsError('ABORTED', 'the Wyoming client went away'))
    this.open?.stream.fail(this.gone.signal.reason)
    if (!this.output.writableEnded && !this.output.destroyed) this.output.end()
    if ((this.input as unknown) !== this.output) this.input.destroy()
    else if (this.output.writableFinished) this.output.destroy()
    else {
      // A socket is destroyed once what it was sent last (an error saying why) is on its way.
      this.output.once('finish', () => this.output.destroy())
      setTimeout(() => this.output.destroy(), CLOSE_GRACE_MS).unref()
    }
    void this.settle()
  }

  /** Closes once the synthesis under way (a stream until its synthesize-stop) is sent; a new one is refused meanwhile. */
  closeWhenIdle(): void {
    this.closing = true
    if (!this.handling && !this.open) this.close()
  }

  /** Waits for the work under way to unwind before the connection counts as closed. */
  private async settle(): Promise<void> {
    await this.handled
    await this.open?.done
    this.markClosed()
  }

  private receive(bytes: Buffer): void {
    if (this.gone.signal.aborted) return
    let events: WyomingEvent[]
    try {
      events = this.reader.push(bytes)
    } catch (error) {
      // The framing is lost: nothing after it can be read. Say why, then close.
      this.send(errorEvent(asTtsError(error)))
      this.close()
      return
    }
    this.inbox.push(...events)
    if (this.inbox.length >= INBOX_BOUND) this.input.pause()
    if (!this.handling && this.inbox.length > 0) {
      this.handling = true
      this.handled = this.handleInbox()
    }
  }

  /** Handles the events received, in order, until none is left. */
  private async handleInbox(): Promise<void> {
    try {
      while (this.inbox.length > 0 && !this.gone.signal.aborted) {
        await this.handle(this.inbox.shift()!)
        // A client that does not read what it asks for is not read from either.
        if (this.output.writableNeedDrain) await this.drained()
      }
    } finally {
      this.handling = false
    }
    if (this.closing && !this.open) this.close()
    if (!this.gone.signal.aborted) this.input.resume()
  }

  private async handle(event: WyomingEvent): Promise<void> {
    try {
      switch (event.type) {
        case 'describe':
          return this.send(infoEvent(await WyomingVoices.of(this.options.engine)))
        case 'synthesize':
          // Inside a stream, it repeats the stream's text for servers that do not stream.
          if (this.open) return
          this.refuseWhenClosing()
          // A signal of its own (the connection's, followed), by which its speech is told from the connection's other syntheses.
          return await this.observed('synthesize', AbortSignal.any([this.gone.signal]), (observation, signal) => this.synthesize(parseEvent(synthesizeSchema, event), signal, observation))
        case 'synthesize-start':
          this.refuseWhenClosing()
          return this.startStream(parseEvent(synthesizeStartSchema, event))
        case 'synthesize-chunk': {
          const { text } = parseEvent(synthesizeChunkSchema, event)
          if (!this.open) throw new TtsError('INVALID_MESSAGE', 'synthesize-chunk outside a stream: send synthesize-start first')
          await this.open.stream.room()
          return this.open.stream.write(text)
        }
        case 'synthesize-stop':
          return await this.stopStream()
        default:
          // Events of other services (asr, wake, ...) are not this server's: ignored, as the reference servers do.
          return
      }
    } catch (error) {
      this.send(errorEvent(asTtsError(error)))
    }
  }

  private refuseWhenClosing(): void {
    if (this.closing) throw new TtsError('SERVER_CLOSING', 'the Wyoming server is shutting down')
  }

  /** Runs a synthesis whose engine calls carry `signal` within the host's observation, if it has one. */
  private observed<T>(event: WyomingLog['event'], signal: AbortSignal, work: (observation: ObservedSynthesis | undefined, signal: AbortSignal) => Promise<T>): Promise<T> {
    const observation = this.options.observe?.(event, signal)
    return observation ? observation.within(() => work(observation, signal)) : work(undefined, signal)
  }

  private async synthesize(request: Synthesize, signal: AbortSignal, observation: ObservedSynthesis | undefined): Promise<void> {
    const began = Date.now()
    let speaking: Speaking | undefined
    let audio: AudioOut | undefined
    try {
      speaking = await this.find(request.voice)
      audio = new AudioOut(this.sendAudio, formatOf(speaking), this.options.samplesPerChunk)
      if (request.text.trim() === '') {
        await audio.start()
      } else {
        const format = { container: 'raw', encoding: 'pcm_s16le', sample_rate: speaking.sampleRate } as const
        const chunks = this.options.engine.speak(
          { model_id: speaking.modelId, voice: { mode: 'id', id: speaking.voiceId }, transcript: request.text, output_format: format },
          { signal },
        )
        for await (const chunk of chunks) await audio.write(chunk.audio)
      }
      await audio.stop()
      this.logEntry('synthesize', began, request.text.length, speaking, audio.seconds)
      observation?.end('ok')
    } catch (error) {
      const failure = this.explained(error, request.text_format)
      this.logEntry('synthesize', began, request.text.length, speaking, audio?.seconds ?? 0, failure)
      observation?.end(failure.code)
      throw failure
    }
  }

  private startStream(start: SynthesizeStart): void {
    if (this.open) throw new TtsError('INVALID_MESSAGE', 'synthesize-start inside a stream: send synthesize-stop first')
    const stream = new SpeechStream(this.options.engine, this.gone.signal, this.options.maxPendingChars)
    this.open = { stream, done: this.observed('synthesize-stream', stream.signal, (observation) => this.runStream(stream, start, observation)) }
  }

  private async stopStream(): Promise<void> {
    const open = this.open
    if (!open) throw new TtsError('INVALID_MESSAGE', 'synthesize-stop outside a stream: send synthesize-start first')
    open.stream.end()
    await open.done
    this.open = undefined
  }

  /** Speaks a stream's sentences as they complete; the error of a failed stream is sent in place of its end. */
  private async runStream(stream: SpeechStream, start: SynthesizeStart, observation: ObservedSynthesis | undefined): Promise<void> {
    const began = Date.now()
    let speaking: Speaking | undefined
    let seconds = 0
    try {
      speaking = await this.find(start.voice)
      const format = { container: 'raw', encoding: 'pcm_s16le', sample_rate: speaking.sampleRate } as const
      const request = await this.options.engine.resolve(
        { model_id: speaking.modelId, voice: { mode: 'id', id: speaking.voiceId }, output_format: format },
        { signal: stream.signal },
      )
      stream.begin(request, start.text_format === 'ssml')
      for (let sentence = await stream.next(); sentence; sentence = await stream.next()) {
        const audio = new AudioOut(this.sendAudio, formatOf(speaking), this.options.samplesPerChunk)
        const chunks = await sentence.chunks
        try {
          for (let next = await sentence.first; !next.done; next = await chunks.next()) await audio.write(next.value.audio)
        } finally {
          await chunks.return?.()
        }
        await audio.stop()
        seconds += audio.seconds
      }
      this.send(SYNTHESIZE_STOPPED)
      this.logEntry('synthesize-stream', began, stream.characters, speaking, seconds)
      observation?.end('ok')
    } catch (error) {
      stream.fail(error)
      const failure = this.explained(error, start.text_format)
      this.logEntry('synthesize-stream', began, stream.characters, speaking, seconds, failure)
      observation?.end(failure.code)
      this.send(errorEvent(failure))
    }
  }

  private async find(voice: SynthesizeVoice | null | undefined): Promise<Speaking> {
    const voices = await WyomingVoices.of(this.options.engine)
    return voices.find(voice, this.options.defaultVoice)
  }

  /** The error a client is told, with what it was about: markup in an SSML text is the SSML's fault. */
  private explained(error: unknown, textFormat: string | null | undefined): TtsError {
    const failure = this.gone.signal.aborted ? asTtsError(this.gone.signal.reason) : asTtsError(error)
    if (textFormat === 'ssml' && failure.code === 'INVALID_MARKUP') {
      return new TtsError('INVALID_MARKUP', `the SSML could not be read: ${failure.message}`, { cause: failure })
    }
    return failure
  }

  private logEntry(event: WyomingLog['event'], began: number, characters: number, speaking: Speaking | undefined, seconds: number, failure?: TtsError): void {
    this.options.log?.({
      client: this.options.client,
      event,
      ...(speaking && { voice_id: speaking.voiceId, model_id: speaking.modelId }),
      characters,
      audio_seconds: Math.round(seconds * 1000) / 1000,
      duration_ms: Date.now() - began,
      ...(failure && { error_code: failure.code }),
    })
  }

  /** Audio waits for the connection to take what it was sent: the engine is read no faster than the client. */
  private readonly sendAudio: Send = async (event) => {
    this.gone.signal.throwIfAborted()
    this.send(event)
    if (this.output.writableNeedDrain) await this.drained()
    this.gone.signal.throwIfAborted()
  }

  /** Writes an event; the caller waits for the output to drain where it sends more. */
  private send(event: WyomingEvent): void {
    if (this.output.writableEnded || this.output.destroyed) return
    this.output.write(encodeEvent(event))
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.output.off('drain', done)
        this.gone.signal.removeEventListener('abort', done)
        resolve()
      }
      this.output.on('drain', done)
      this.gone.signal.addEventListener('abort', done)
    })
  }
}
