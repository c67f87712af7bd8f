/**
 * ElevenLabs' WebSockets on the realtime connection:
 *
 *   /v1/text-to-speech/{voice_id}/stream-input        one context; `{"text": ""}` ends the socket
 *   /v1/text-to-speech/{voice_id}/multi-stream-input  `context_id` on every message, close_context, close_socket
 *
 * The query says the model and output_format; the first message says voice_settings (and may carry
 * the key as `xi_api_key`). Each frame is checked in ElevenLabs' shape, then becomes the SPEC's
 * messages (initializeConnection with the first, then text, closeContext, cancel, terminate), which
 * pass the one gate; the connection's events become ElevenLabs' audio, isFinal and error messages.
 */
import * as z from 'zod'
import { ERROR_STATUS, TtsError, isTtsError, type ErrorCode } from '../../../errors.js'
import { DEFAULT_CONTEXT_ID, frameObject, parseMessageFields, type ClientMessage, type ServerMessage } from '../../../realtime/messages.js'
import { parseWith } from '../../../validation/parse.js'
import { header } from '../../dialect.js'
import type { RealtimeEndpoint, RealtimeTranslator } from '../../realtime-endpoint.js'
import { alignText, socketAlignment, timedWords } from './alignment.js'
import { ELEVENLABS_DIALECT, ELEVENLABS_STATUS } from './errors.js'
import { parseOutputFormat } from './formats.js'
import { svcModelId } from './models.js'
import { pronunciationLocatorsSchema, svcDictionaries, svcLanguage, svcSpeed, voiceSettingsSchema, type DialectTables } from './requests.js'
import { svcVoiceId } from './voices.js'

const PREFIX = '/v1/text-to-speech/:voice_id'

/** Every message either socket takes; unknown fields pass, as ElevenLabs lets them. */
const frameSchema = z.object({
  text: z.string().optional(),
  context_id: z.string().min(1).max(128).optional(),
  flush: z.boolean().nullish(),
  try_trigger_generation: z.boolean().nullish(),
  close_context: z.boolean().nullish(),
  close_socket: z.boolean().nullish(),
  voice_settings: voiceSettingsSchema,
  generation_config: z.object({ chunk_length_schedule: z.array(z.number()).optional() }).nullish(),
  pronunciation_dictionary_locators: pronunciationLocatorsSchema,
  xi_api_key: z.string().optional(),
  authorization: z.string().optional(),
})

type Frame = z.infer<typeof frameSchema>

function checkedFrame(text: string): Frame {
  const fields = frameObject(text)
  try {
    return parseWith(frameSchema, fields, 'message')
  } catch (error) {
    if (!isTtsError(error)) throw error
    // A frame's fault is the message's, and names its context when it names one (as every error of a context does).
    const id = typeof fields.context_id === 'string' && fields.context_id.length <= 128 ? { context_id: fields.context_id } : {}
    throw new TtsError('INVALID_MESSAGE', error.message, { extra: { ...error.extra, ...id } })
  }
}

/** The key a first message carries, for clients that cannot set headers. */
function messageKey(text: string): string | undefined {
  try {
    const key = (JSON.parse(text) as { xi_api_key?: unknown } | null)?.xi_api_key
    return typeof key === 'string' ? key : undefined
  } catch {
    return undefined
  }
}

/** What refuses initializeConnection itself (not a context): the connection stays uninitialised. */
const INITIALIZE_REFUSALS: ReadonlySet<ErrorCode> = new Set(['MODEL_NOT_FOUND', 'VOICE_NOT_FOUND', 'FORMAT_NOT_RECOGNIZED', 'INVALID_LANGUAGE'])

class ElevenLabsTranslator implements RealtimeTranslator {
  private initialized = false
  /** The context of the frame that initialised the connection, until its audio shows it took: a refusal of the initialisation is that context's. */
  private initializing: string | undefined
  /**
   * Contexts started and not yet ended (by isFinal or an error of theirs: at most the server's live
   * contexts, and those whose start is in flight). An error leaves a context live at times (a write
   * past its length); dropping it costs only the rare uses below, never a context left unclosed.
   */
  private readonly live = new Set<string>()
  /** Live contexts with text since their last flush: closing one of them drops that text, as ElevenLabs does. */
  private readonly unflushed = new Set<string>()
  /** The context whose isFinal just went out: the connection ends a context with two final outputs in a row. */
  private lastFinal: string | undefined

  constructor(
    private readonly multi: boolean,
    private readonly tables: DialectTables,
    private readonly voiceId: string,
    private readonly query: URLSearchParams,
  ) {}

  messages(text: string): ClientMessage[] {
    const frame = checkedFrame(text)
    // Ending needs no initialised connection: a client whose first message was refused can still end.
    if (this.multi ? frame.close_socket === true : frame.text === '') return [parseMessageFields({ terminate: true })]
    const out: ClientMessage[] = []
    const id = frame.context_id ?? DEFAULT_CONTEXT_ID
    if (!this.initialized) {
      out.push(this.initialize(frame))
      this.initialized = true
      this.initializing = id
    }
    if (this.multi && frame.close_context === true) {
      const close = this.unflushed.has(id) ? { context_id: id, cancel: true } : { context_id: id, close_context: true }
      return [...out, parseMessageFields(close)]
    }
    if (frame.text === undefined) {
      if (out.length > 0) return out
      throw new TtsError('INVALID_MESSAGE', this.multi ? 'expected text, close_context or close_socket' : 'expected text')
    }
    const flush = frame.flush === true
    if (frame.text === '') {
      // An empty text keeps a context alive; with flush, it speaks what the context holds.
      if (!flush || !this.live.has(id)) return out
      this.unflushed.delete(id)
      return [...out, parseMessageFields({ context_id: id, transcript: '', force: true })]
    }
    const starting = !this.live.has(id)
    const speed = starting && out.length === 0 ? svcSpeed(frame.voice_settings?.speed) : undefined
    const message = parseMessageFields({ context_id: id, transcript: frame.text, force: flush, ...(speed !== undefined && { speed }) })
    if (starting) {
      this.live.add(id)
      if (this.lastFinal === id) this.lastFinal = undefined
    }
    if (flush) this.unflushed.delete(id)
    else if (frame.text.trim()) this.unflushed.add(id)
    return [...out, message]
  }

  private initialize(frame: Frame): ClientMessage {
    const format = parseOutputFormat(this.query.get('output_format'))
    const language = svcLanguage(this.query.get('language_code'))
    const speed = svcSpeed(frame.voice_settings?.speed)
    const dictionaries = svcDictionaries(frame.pronunciation_dictionary_locators)
    return parseMessageFields({
      model_id: svcModelId(this.tables.models, this.query.get('model_id')),
      voice: { mode: 'id', id: svcVoiceId(this.tables.voices, this.voiceId) },
      output_format: format.fields,
      ...(language && { language }),
      ...(speed !== undefined && { speed }),
      ...(dictionaries && { pronunciation_dictionaries: dictionaries }),
      add_timestamps: true,
    })
  }

  private forget(id: string): void {
    this.live.delete(id)
    this.unflushed.delete(id)
  }

  events(event: ServerMessage): unknown[] {
    if ('error_code' in event) {
      const refusedInitialization = event.context_id === undefined && this.initializing !== undefined && INITIALIZE_REFUSALS.has(event.error_code)
      let contextId = event.context_id
      if (refusedInitialization) {
        // The connection was not initialised: the next message that starts a context initialises it again.
        this.initialized = false
        contextId = this.initializing
      }
      if (contextId !== undefined) this.forget(contextId)
      const context = this.multi && contextId !== undefined ? { contextId } : {}
      return [{ error: ELEVENLABS_STATUS[event.error_code], message: event.message, code: ERROR_STATUS[event.error_code], ...context }]
    }
    if ('flushed' in event) return []  // not asked for: ElevenLabs has no flush acknowledgement
    const id = event.context_id
    const context = this.multi ? { contextId: id } : {}
    if (event.audio === '' && event.final) {
      if (this.lastFinal === id) return []
      this.lastFinal = id
      this.forget(id)
      return [{ isFinal: true, ...context }]
    }
    const timed = 'alignment' in event && event.alignment ? timedWords(event.alignment) : []
    // A compressed stream's encoder may hold a chunk's audio for later: its words still go out now.
    if (event.audio === '' && timed.length === 0) return []
    this.lastFinal = undefined
    this.initializing = undefined
    // The chunk's words as spoken, each followed by a space: times from the start of the context's audio.
    const alignment = timed.length > 0 ? socketAlignment(alignText(timed.map((w) => `${w.text} `).join(''), timed)) : null
    return [{ audio: event.audio, isFinal: false, alignment, normalizedAlignment: alignment, ...context }]
  }
}

function endpoint(path: string, multi: boolean, tables: DialectTables): RealtimeEndpoint {
  return {
    path,
    dialect: ELEVENLABS_DIALECT,
    versionRequired: false,
    handshakeKey: (headers, query) => header(headers, 'xi-api-key') ?? query.get('xi_api_key') ?? undefined,
    messageKey,
    translator: (params, query) => new ElevenLabsTranslator(multi, tables, params.voice_id ?? '', query),
  }
}

export function realtimeEndpoints(tables: DialectTables): RealtimeEndpoint[] {
  return [endpoint(`${PREFIX}/stream-input`, false, tables), endpoint(`${PREFIX}/multi-stream-input`, true, tables)]
}
