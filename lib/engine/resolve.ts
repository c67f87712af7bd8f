/**
 * The one gate every synthesis request passes: an HTTP body, a WebSocket context, a library call.
 * Here, and only here, a request is parsed and validated (once: a request checked upstream, by a
 * route's body schema or a realtime message, is trusted as it is) and resolved: its model, voice,
 * language, output format and speed looked up and checked together, into a ResolvedRequest that
 * everything below takes as it is.
 */
import type { Container, OutputFormat } from '../audio/format.js'
import { TtsError } from '../errors.js'
import type { LoadedPack } from '../neural/packs.js'
import { LANGUAGES, type Language } from '../text/types.js'
import { assembled, parseWith } from '../validation/parse.js'
import type { Lexicon } from '../text/lexicon.js'
import type { DictionaryLibrary } from '../voices/dictionaries/library.js'
import type { DictionaryLocator } from '../voices/dictionaries/schemas.js'
import type { VoiceLibrary } from '../voices/library.js'
import type { BackendTuning, StoredVoice } from '../voices/types.js'
import type { ModelEntry, ModelRegistry } from './models.js'
import {
  formatIn,
  speechSessionRequestSchema,
  SYNTHESIS_FIELD_CODES,
  synthesisRequestSchema,
  type CheckedRequestFields,
  type ParsedSpeechRequest,
  type ParsedSynthesisRequest,
} from './requests.js'
import { resolveMix } from './voice-mix.js'

/** A request ready to speak: nothing below the gate checks it again. */
export interface ResolvedRequest {
  readonly transcript: string
  /** The request's speed, multiplying the voice's own rate. */
  readonly speed: number
  readonly model: ModelEntry
  readonly language: Language
  readonly voice: StoredVoice
  readonly format: OutputFormat
  /** A cloned voice on a neural pack: its fit to the pack voice it speaks with. */
  readonly packTuning?: BackendTuning
  /** A mix of the pack's voices (voice.mode 'mix'): the style the addon blends; `voice` is its first voice. */
  readonly packVoice?: string
  /** SSML elements the engine does not know are read as their text (default: refused). */
  readonly ssmlUnknownElements?: 'error' | 'text'
  /** The rules of the request's pronunciation dictionaries, at the versions it named. */
  readonly lexicon?: Lexicon
}

/** The kinds of request: a whole transcript (synthesis), or a session's text to come. */
export type RequestKind = 'synthesis' | 'session'

const SCHEMAS = { synthesis: synthesisRequestSchema, session: speechSessionRequestSchema } as const

const resolvedRequests = new WeakSet<ResolvedRequest>()

export function isResolved(request: unknown): request is ResolvedRequest {
  return typeof request === 'object' && request !== null && resolvedRequests.has(request as ResolvedRequest)
}

/** Validates a request of `kind` (a request checked before by the same schema is returned as it is). */
export function parseRequest(value: unknown, kind: 'synthesis'): ParsedSynthesisRequest
export function parseRequest(value: unknown, kind: RequestKind): ParsedSpeechRequest | ParsedSynthesisRequest
export function parseRequest(value: unknown, kind: RequestKind): ParsedSpeechRequest | ParsedSynthesisRequest {
  return parseWith(SCHEMAS[kind], value, kind === 'synthesis' ? 'synthesis request' : 'session request', SYNTHESIS_FIELD_CODES)
}

/** What a realtime context may change of its connection's request. */
export type RequestOverrides = Partial<Pick<ParsedSpeechRequest, 'model_id' | 'voice' | 'language' | 'speed' | 'pronunciation_dictionaries'>>

/**
 * A session request made of fields a realtime message checked (its connection's, and a context's
 * own overrides): trusted by the gate as it is, since each field passed its own schema.
 */
export function sessionRequestFrom(fields: CheckedRequestFields, overrides: RequestOverrides = {}): ParsedSpeechRequest {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined))
  return assembled(speechSessionRequestSchema, { ...fields, ...defined } as ParsedSpeechRequest)
}

/** Kokoro exports traced with an integer speed (kokoro-onnx#155): the addon rounds a fractional speed. */
export function takesWholeSpeedsOnly(pack: LoadedPack): boolean {
  return pack.info.inputs.some((input) => input.name === 'speed' && input.type === 'int32')
}

export interface ResolverLimits {
  maxTranscriptChars: number
  /** The dictionaries of a request that names none. */
  defaultDictionaries: readonly DictionaryLocator[]
}

/**
 * What fits a cloned voice to a pack: renders the calibration on `model` with a trial tuning. The
 * fit is shared by every request waiting for it, so no caller's signal stops it.
 */
export type PackCalibration = (model: ModelEntry, voice: StoredVoice, language: Language, tuning: BackendTuning) => Promise<Buffer>

export class RequestResolver {
  constructor(
    private readonly models: ModelRegistry,
    private readonly voices: VoiceLibrary,
    private readonly limits: ResolverLimits,
    private readonly calibrate: PackCalibration,
    private readonly dictionaries: DictionaryLibrary,
  ) {}

  /**
   * The request of `kind` (raw, checked, or already resolved) resolved, with `container` where it
   * names none; `signal` ends the wait for its voice.
   */
  async resolve(request: unknown, kind: RequestKind, container: Container, signal: AbortSignal, maxTranscriptChars = this.limits.maxTranscriptChars): Promise<ResolvedRequest> {
    if (isResolved(request)) return request
    const parsed: ParsedSpeechRequest | ParsedSynthesisRequest = parseRequest(request, kind)
    const transcript = parsed.transcript ?? ''
    if (transcript.length > maxTranscriptChars) {
      throw new TtsError('TRANSCRIPT_TOO_LONG', `transcript has ${transcript.length} characters; the limit is ${maxTranscriptChars}`)
    }
    const format = formatIn(parsed.output_format, container)
    const model = this.models.get(parsed.model_id)
    const mix = parsed.voice.mode === 'mix' ? resolveMix(model, parsed.voice.voices) : undefined
    const voice = await this.voices.find(parsed.voice.mode === 'mix' ? parsed.voice.voices[0]!.id : parsed.voice.id, signal)
    const language = parsed.language ?? voice.record.language
    if (!(LANGUAGES as readonly string[]).includes(language) || !model.languages.includes(language)) {
      const why = parsed.language === undefined ? `voice '${voice.record.name}' speaks '${language}', which` : `language '${language}'`
      throw new TtsError('INVALID_LANGUAGE', `${why} is not supported by ${model.id} (supported: ${model.languages.join(', ')})`)
    }
    if (model.pack && !Number.isInteger(voice.rendering.speed * parsed.speed) && takesWholeSpeedsOnly(model.pack)) {
      throw new TtsError('INVALID_REQUEST', `${model.id} is a Kokoro export whose speed input is an integer: it speaks at speed 1 or 2 only`)
    }
    const packTuning = await this.packTuning(model, voice, language, signal)
    const unknownElements = parsed.ssml_unknown_elements
    const lexicon = await this.dictionaries.lexicon(parsed.pronunciation_dictionaries ?? this.limits.defaultDictionaries)
    const resolved: ResolvedRequest = Object.freeze({
      transcript, speed: parsed.speed, model, language, voice, format,
      ...(packTuning && { packTuning }), ...(unknownElements && { ssmlUnknownElements: unknownElements }), ...(lexicon && { lexicon }), ...(mix && { packVoice: mix.spec }),
    })
    resolvedRequests.add(resolved)
    return resolved
  }

  private async packTuning(model: ModelEntry, voice: StoredVoice, language: Language, signal: AbortSignal): Promise<BackendTuning | undefined> {
    const { pack } = model
    if (!pack) return undefined
    const key = JSON.stringify([pack.modelId, pack.path, language])
    return this.voices.packTuning(key, voice, takesWholeSpeedsOnly(pack), (tuning) => this.calibrate(model, voice, language, tuning), signal)
  }
}
