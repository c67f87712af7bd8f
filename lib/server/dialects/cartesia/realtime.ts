/**
 * Cartesia's WebSocket (`/tts/websocket`) on the SPEC's realtime connection. Each Cartesia message
 * is a whole generation request for a context; the translator keeps which contexts are open, so
 * that the first message of a context opens it (with its model, voice, language and speed where
 * they differ from the connection's), the next ones only add text, `flush` forces synthesis, and
 * `continue: false` (or none) ends the context's text. The connection's events become `chunk`,
 * `timestamps`, `flush_done`, `done` and `error` messages.
 *
 * The SPEC's connection speaks one output format, set by its first message; the first request a
 * client sends sets it, and a context asking for another is refused.
 */
import type { IncomingHttpHeaders } from 'node:http'
import * as z from 'zod'
import { TtsError, isTtsError } from '../../../errors.js'
import { DEFAULT_CONTEXT_ID, frameObject, parseMessageFields, type ClientMessage, type ServerMessage } from '../../../realtime/messages.js'
import { parseWith } from '../../../validation/parse.js'
import type { RealtimeEndpoint, RealtimeTranslator } from '../../realtime-endpoint.js'
import { CARTESIA_DIALECT, cartesiaKey } from './dialect.js'
import { chunkEvent, doneEvent, errorEvent, flushDoneEvent, timestampsEvent, wordTimestamps } from './events.js'
import type { ModelTable } from './models.js'
import { GENERATION_FIELDS, speakingFields, type SpeakingFields, type SpeechFieldsInput } from './requests.js'

export const CARTESIA_WEBSOCKET_PATH = '/tts/websocket'

/** A message: a generation request (whose speech fields a context's later messages may leave out), or a cancel. */
const messageSchema = z.object({
  ...GENERATION_FIELDS,
  model_id: GENERATION_FIELDS.model_id.optional(),
  voice: GENERATION_FIELDS.voice.optional(),
  output_format: GENERATION_FIELDS.output_format.optional(),
  context_id: z.string().min(1).max(128).optional(),
  transcript: z.string().optional(),
  continue: z.boolean().nullish(),
  flush: z.boolean().nullish(),
  // Accepted and not needed: synthesis starts at each sentence's end, and `flush` forces the rest.
  max_buffer_delay_ms: z.number().min(0).max(5000).nullish(),
  cancel: z.literal(true).optional(),
})

type Message = z.output<typeof messageSchema>

interface OpenContext {
  speech: SpeakingFields
  timestamps: boolean
  /** Its text has ended (`continue: false`): a later message with its id starts a new context. */
  closing: boolean
  /** Flushes asked and not yet answered with flush_done. */
  flushes: number[]
  lastFlushId: number
  /** The connection ends a context with two final outputs (the last audio, then the end). */
  finals: number
  lastEventAt: number
}

function sameFormat(a: SpeakingFields['output_format'], b: SpeakingFields['output_format']): boolean {
  return a.container === b.container && a.encoding === b.encoding && a.sample_rate === b.sample_rate && a.bit_rate === b.bit_rate
}

function sameSpeech(a: SpeakingFields, b: SpeakingFields): boolean {
  return a.model_id === b.model_id && a.voice.id === b.voice.id && a.language === b.language && a.speed === b.speed && sameFormat(a.output_format, b.output_format)
}

export class CartesiaTranslator implements RealtimeTranslator {
  /** The speech the SPEC connection was initialised with (by the first request). */
  private connection: SpeakingFields | undefined
  private readonly contexts = new Map<string, OpenContext>()
  /** The context whose message initialised the connection, until the next frame: a failure to initialise is its error. */
  private initializing: string | undefined
  /** Contexts refused while the current frame is handled: one request is refused once, not again for each SPEC message it became. */
  private readonly refused = new Set<string>()

  constructor(private readonly models: ModelTable) {}

  messages(text: string): ClientMessage[] {
    this.initializing = undefined
    this.refused.clear()
    const fields = frameObject(text)
    const contextId = typeof fields.context_id === 'string' && fields.context_id.length <= 128 ? fields.context_id : undefined
    try {
      const message = parseWith(messageSchema, fields, 'Cartesia WebSocket message')
      return message.cancel ? this.cancel(message) : this.generation(message)
    } catch (error) {
      // The refusal of a message names its context, as every error of a context does.
      if (!isTtsError(error) || contextId === undefined) throw error
      throw new TtsError(error.code, error.message, { cause: error, extra: { ...error.extra, context_id: contextId } })
    }
  }

  private cancel(message: Message): ClientMessage[] {
    const id = message.context_id ?? DEFAULT_CONTEXT_ID
    // A context already done has nothing left to stop.
    if (!this.contexts.has(id)) return []
    return [parseMessageFields({ context_id: id, cancel: true })]
  }

  private generation(message: Message): ClientMessage[] {
    if (message.transcript === undefined) throw new TtsError('INVALID_MESSAGE', 'a message needs a transcript (or cancel: true)')
    const id = message.context_id ?? DEFAULT_CONTEXT_ID
    const current = this.contexts.get(id)
    const out: ClientMessage[] = []
    let context: OpenContext
    if (!current || current.closing) {
      context = this.open(id, message, out)
    } else {
      context = current
      if (message.model_id !== undefined || message.voice !== undefined || message.output_format !== undefined) {
        if (!sameSpeech(this.speechOf(message), context.speech)) {
          throw new TtsError('INVALID_MESSAGE', 'a context keeps the model_id, voice, output_format, language and speed of its first message')
        }
      }
      if (message.transcript || message.flush) out.push(parseMessageFields({ context_id: id, transcript: message.transcript, ...(message.flush && { force: true }) }))
    }
    if (message.flush) context.flushes.push(++context.lastFlushId)
    if (!message.continue) {
      context.closing = true
      out.push(parseMessageFields({ context_id: id, close_context: true }))
    }
    return out
  }

  private speechOf(message: Message): SpeakingFields {
    const { model_id, voice, output_format } = message
    if (model_id === undefined || voice === undefined || output_format === undefined) {
      throw new TtsError('INVALID_MESSAGE', 'the first message of a context needs model_id, voice and output_format')
    }
    return speakingFields({ ...message, model_id, voice, output_format } as SpeechFieldsInput, this.models)
  }

  /**
   * A context's first message: it initialises the connection if it is the first of all, then opens
   * the context with what differs. Nothing is recorded until every message it makes has passed.
   */
  private open(id: string, message: Message, out: ClientMessage[]): OpenContext {
    const speech = this.speechOf(message)
    if (speech.output_format.container !== 'raw') {
      throw new TtsError('FORMAT_NOT_RECOGNIZED', `output_format.container: the WebSocket sends raw audio only, not ${speech.output_format.container}`)
    }
    const connection = this.connection
    if (connection && !sameFormat(speech.output_format, connection.output_format)) {
      throw new TtsError('FORMAT_NOT_RECOGNIZED', 'output_format: every context of a connection takes the output_format of its first request; open another connection for another format')
    }
    const base = connection ?? speech
    const { model_id, voice, output_format } = speech
    const initialize = connection ? [] : [parseMessageFields({ model_id, voice, output_format, add_timestamps: true })]
    const text = parseMessageFields({
      context_id: id,
      transcript: message.transcript,
      ...(message.flush && { force: true }),
      ...(model_id !== base.model_id && { model_id }),
      ...(voice.id !== base.voice.id && { voice }),
      ...(speech.language !== undefined && { language: speech.language }),
      ...(speech.speed !== undefined && { speed: speech.speed }),
    })
    if (!connection) {
      this.connection = speech
      this.initializing = id
    }
    out.push(...initialize, text)
    const context: OpenContext = { speech, timestamps: message.add_timestamps ?? false, closing: false, flushes: [], lastFlushId: 0, finals: 0, lastEventAt: performance.now() }
    this.contexts.set(id, context)
    return context
  }

  events(event: ServerMessage): unknown[] {
    if ('error_code' in event) return this.error(event.error_code, event.message, event.context_id)
    const id = event.context_id
    const context = this.contexts.get(id)
    // A context that ended for its client (cancelled, refused) sends nothing more.
    if (!context) return []
    if (this.initializing === id) this.initializing = undefined
    if ('cancelled' in event) {
      this.contexts.delete(id)
      return [doneEvent(id)]
    }
    if ('flushed' in event) return context.flushes.splice(0, event.flushed).map((flushId) => flushDoneEvent(flushId, id))
    const now = performance.now()
    const out: unknown[] = []
    if (event.audio) out.push(chunkEvent(event.audio, Math.round(now - context.lastEventAt), id))
    context.lastEventAt = now
    if (context.timestamps && 'alignment' in event && event.alignment && event.alignment.words.length > 0) out.push(timestampsEvent(wordTimestamps(event.alignment), id))
    if (event.final && ++context.finals === 2) {
      // A flush the session dropped (the context's text had already ended) is done with the context.
      for (const flushId of context.flushes) out.push(flushDoneEvent(flushId, id))
      out.push(doneEvent(id))
      this.contexts.delete(id)
    }
    return out
  }

  private error(code: TtsError['code'], message: string, contextId: string | undefined): unknown[] {
    let id = contextId
    if (id === undefined && this.initializing !== undefined) {
      // initializeConnection failed (its voice, model or format): the error is its context's, and the next request initialises again.
      id = this.initializing
      this.initializing = undefined
      this.connection = undefined
    }
    if (id === undefined) return [errorEvent(new TtsError(code, message), id)]
    if (this.refused.has(id)) return []
    this.refused.add(id)
    this.contexts.delete(id)
    return [errorEvent(new TtsError(code, message), id)]
  }
}

export function cartesiaRealtime(models: ModelTable): RealtimeEndpoint {
  return {
    path: CARTESIA_WEBSOCKET_PATH,
    dialect: CARTESIA_DIALECT,
    versionRequired: false,
    // Browsers cannot set headers: the key may come as `api_key` (and the version as `cartesia_version`, any date).
    handshakeKey: (headers: IncomingHttpHeaders, query: URLSearchParams) => query.get('api_key') ?? cartesiaKey(headers),
    flushMarkers: true,
    translator: () => new CartesiaTranslator(models),
  }
}
