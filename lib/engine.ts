/**
 * The engine: resolves model and voice, and speaks text on a writable speech session, which plans
 * it a sentence at a time and runs the plan on native streams. Every entry point is built on a
 * session, a transport-agnostic stream of audio chunks that each know their words, so one-shot
 * audio is exactly the streamed chunks joined, and text written in pieces sounds the same.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Alignment, TimedWord } from './alignment.js'
import { BYTES_PER_SAMPLE, isCompressed, pcmRate, setFlacTotalSamples, wavHeader, type OutputFormat } from './audio/format.js'
import { abortable } from './abortable.js'
import { CallTracker, type CallScope } from './call-scope.js'
import { createEncoder, EncodedSpeechSession } from './encoded-session.js'
import { TtsError } from './errors.js'
import { DEFAULT_MODELS, ESPEAK_LANGUAGE_VOICE, ModelRegistry, modelsWithPacks, type ModelId, type ModelPack } from './models.js'
import { bundledEspeakDataPath, fromNativeError, loadNative, type NativeAddon, type NativeCounters, type NativePlan } from './native.js'
import type { Device, PackOptions } from './neural/options.js'
import { loadPack, type LoadedPack } from './neural/packs.js'
import { CombinedVoiceStore, PackVoiceStore } from './neural/voices.js'
import {
  callOptionsSchema,
  DEFAULT_MAX_TRANSCRIPT_CHARS,
  DEFAULT_THREAD_NICE,
  cloneRequestSchema,
  engineOptionsSchema,
  listVoicesSchema,
  parseOutputFormat,
  parseSessionRequest,
  parseSynthesisRequest,
  parseWith,
  voiceIdsSchema,
  voicePatchSchema,
  voiceRenderingSchema,
  type SessionRequest,
  type SynthesisRequest,
} from './schemas.js'
import { WritableSpeechSession, type SpeechChunk, type SpeechSession } from './session.js'
import { DEFAULT_MAX_AUDIO_SECONDS, SpeechPlanCheck } from './text/bounds.js'
import { LANGUAGES, type BackendKind, type Language } from './text/types.js'
import { analyseSample, fitPackTuning, fitRendering, inferGender, toAnalysis } from './voices/clone.js'
import { PreviewCache, PREVIEW_MODEL_ID, previewText } from './voices/preview.js'
import { SqliteVoiceStore } from './voices/sqlite-store.js'
import type { BackendTuning, CloneVoiceFields, ListVoicesOptions, StoredVoice, VoiceAnalysis, VoicePage, VoicePatch, VoiceRecord, VoiceStore } from './voices/types.js'

/** `Packs`: the `models` option's packs, whose keys become model ids of the engine. */
export interface EngineOptions<Packs extends Record<string, PackOptions> = Record<string, PackOptions>> {
  /** Native synthesis threads (default: CPU count, 2 to 8). Fixed for the process by the first engine. */
  threads?: number
  /**
   * How much lower than the process's the synthesis threads' scheduling priority is: a nice
   * increment, 0 to 19 (default 10). On a busy CPU the event loop, at the process's priority,
   * still takes audio and I/O at once. Fixed for the process by the first engine, like `threads`.
   */
  threadNice?: number
  /** Chunks of one stream synthesized at once (default 2; a neural pack's streams: 1, each run on `modelThreads`). */
  queueCapacity?: number
  /** Seconds of audio a stream synthesizes ahead of its consumer before synthesis waits (default 5). */
  aheadSeconds?: number
  /** Longest transcript accepted, in UTF-16 characters (default 100 000). */
  maxTranscriptChars?: number
  /** Longest audio of one request in seconds, breaks included (default 1800): estimated before synthesis, enforced during it. */
  maxAudioSeconds?: number
  /** espeak-ng data directory (default: the one shipped beside the addon, else the system's). */
  espeakDataPath?: string
  /** Where the voice library lives (`<dataDir>/voices.db`); without it cloned voices last as long as the engine. */
  dataDir?: string
  /** A voice library of your own instead of the SQLite one (the engine then does not close it). */
  voiceStore?: VoiceStore
  /** Model ids served by neural packs: `{ 'svc_pro_v1.0': { type: 'piper', path: '/voices/x.onnx' } }`. */
  models?: Packs
  /** Where neural packs run: 'auto' (CUDA if it loads, else the CPU, with a warning), 'cpu' (default), 'cuda'. */
  device?: Device
  /** Intra-op threads of each neural session (default 1: concurrent requests run in parallel instead). */
  modelThreads?: number
  /** Where load-time warnings go (a device fallback); default process.emitWarning. */
  onWarning?: (message: string) => void
}

/** The answer of a batch get: the voices found, in the order asked, and the ids no voice has. */
export interface VoiceBatch {
  voices: VoiceRecord[]
  not_found: string[]
}

export interface CallOptions {
  signal?: AbortSignal
}

export type { SpeechChunk, SpeechSession } from './session.js'

export interface TimestampedSpeech {
  audio_base64: string
  alignment: Alignment
}

interface ResolvedRequest {
  transcript: string
  /** The request's speed, multiplying the voice's own rate. */
  speed: number
  model: ModelPack
  language: Language
  voice: StoredVoice
  format: OutputFormat
  /** A cloned voice on a neural pack: its fit to the pack voice it speaks with. */
  packTuning?: BackendTuning
}

/**
 * The PCM the native stream makes for a format: the format itself for raw and wav; for a
 * compressed container, float samples at the rate its encoder takes.
 */
function pcmFormat(format: OutputFormat): Pick<NativePlan, 'sampleRate' | 'encoding'> {
  if (!isCompressed(format)) return { sampleRate: format.sample_rate, encoding: format.encoding }
  return { sampleRate: pcmRate(format), encoding: 'pcm_f32le' }
}

/** What a clone's fit is measured on: about six seconds of varied English. */
const CALIBRATION_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.'

function voiceNotFound(voiceId: string): TtsError {
  return new TtsError('VOICE_NOT_FOUND', `no voice has id '${voiceId}'`)
}

/** Kokoro exports traced with an integer speed (kokoro-onnx#155): the addon rounds a fractional speed. */
function takesWholeSpeedsOnly(pack: LoadedPack): boolean {
  return pack.info.inputs.some((input) => input.name === 'speed' && input.type === 'int32')
}

function openVoiceStore(dataDir: string | undefined): VoiceStore {
  if (dataDir === undefined) return new SqliteVoiceStore(':memory:')
  mkdirSync(dataDir, { recursive: true })
  return new SqliteVoiceStore(path.join(dataDir, 'voices.db'))
}

/**
 * `PackModelId`: model ids beyond the SPEC's three, served by the neural packs of the `models`
 * option (createEngine infers them). Requests are typed with them and checked again at run time.
 */
export class Engine<PackModelId extends string = never> {
  readonly models: ModelRegistry
  private readonly voiceStore: VoiceStore
  private readonly packVoices: PackVoiceStore
  private readonly ownsVoiceStore: boolean
  private readonly previews = new PreviewCache()
  /** Cloned voices fitted to pack voices, by pack, voice and its last update, and language. */
  private readonly packTunings = new Map<string, Promise<BackendTuning>>()
  private readonly queueCapacity: number
  private readonly aheadSeconds: number
  private readonly maxTranscriptChars: number
  private readonly maxAudioSeconds: number
  private readonly calls = new CallTracker()
  private closed = false

  constructor(
    private readonly native: NativeAddon,
    options: EngineOptions,
    private readonly packs: readonly LoadedPack[] = [],
  ) {
    this.models = new ModelRegistry(modelsWithPacks(packs))
    this.ownsVoiceStore = options.voiceStore === undefined
    this.packVoices = new PackVoiceStore(packs)
    this.voiceStore = new CombinedVoiceStore(options.voiceStore ?? openVoiceStore(options.dataDir), this.packVoices)
    this.queueCapacity = options.queueCapacity ?? 2
    this.aheadSeconds = options.aheadSeconds ?? 5
    this.maxTranscriptChars = options.maxTranscriptChars ?? DEFAULT_MAX_TRANSCRIPT_CHARS
    this.maxAudioSeconds = options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS
  }

  /** The voice library: every operation of the SPEC's voice API. */
  readonly voices = {
    /**
     * A new voice from a recording (WAV, FLAC, Ogg or MP3, at least 3 s of speech, at most 60 s)
     * and its fields { name, description?, language, gender? }. Nothing is stored unless it succeeds.
     */
    clone: async (sample: Buffer, fields: CloneVoiceFields, options?: CallOptions): Promise<VoiceRecord> => {
      const scope = this.begin(options)
      try {
        const store = this.openStore()
        const meta = parseWith(cloneRequestSchema, fields, 'clone request')
        if (!Buffer.isBuffer(sample)) throw new TtsError('INVALID_REQUEST', 'the sample must be a Buffer')
        const { analysis, mediaType } = await analyseSample(this.native, sample)
        scope.throwIfAborted()
        const gender = meta.gender ?? inferGender(analysis)
        const rendering = await fitRendering(analysis, gender, (backend, base, tuning) => this.measureRendering(backend, base, tuning, scope))
        scope.throwIfAborted()
        const stored = await store.create({ ...meta, gender, rendering, analysis, sample: { audio: sample, mediaType } })
        return stored.record
      } finally {
        scope.end()
      }
    },
    list: async (options: ListVoicesOptions = {}): Promise<VoicePage> =>
      this.openStore().list(parseWith(listVoicesSchema, options, 'voice list options')),
    get: async (voiceId: string): Promise<VoiceRecord> => (await this.findVoice(voiceId)).record,
    /** Unknown ids are reported in `not_found`, not thrown. */
    getBatch: async (voiceIds: readonly string[]): Promise<VoiceBatch> => {
      const ids = parseWith(voiceIdsSchema, voiceIds, 'voice ids')
      const found = await this.openStore().getMany(ids)
      const known = new Set(found.map((v) => v.record.voice_id))
      return { voices: found.map((v) => v.record), not_found: ids.filter((id) => !known.has(id)) }
    },
    /** Changes a cloned voice's name, description, language or gender; predefined voices are VOICE_READ_ONLY. */
    update: async (voiceId: string, patch: VoicePatch): Promise<VoiceRecord> => {
      const changes = parseWith(voicePatchSchema, patch, 'voice update')
      const updated = await this.openStore().update(voiceId, changes)
      if (!updated) throw voiceNotFound(voiceId)
      this.previews.forget(voiceId)
      return updated.record
    },
    delete: async (voiceId: string): Promise<void> => {
      if (!(await this.openStore().delete(voiceId))) throw voiceNotFound(voiceId)
      this.previews.forget(voiceId)
    },
    /** A short WAV of the voice speaking its language; cached until the voice changes. */
    preview: async (voiceId: string, options: CallOptions = {}): Promise<Buffer> => {
      const voice = await this.findVoice(voiceId)
      return this.previews.get(voice, () =>
        this.synthesize({
          model_id: PREVIEW_MODEL_ID,
          transcript: previewText(voice.record.language),
          voice: { mode: 'id', id: voiceId },
          output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 22050 },
        }, options),
      )
    },
  }

  /** One audio file for the whole transcript (container defaults to wav). */
  async synthesize(request: SynthesisRequest<ModelId | PackModelId>, options?: CallOptions): Promise<Buffer> {
    const scope = this.begin(options)
    try {
      return (await this.render(await this.resolve(request, 'wav', scope), scope)).audio
    } finally {
      scope.end()
    }
  }

  /** Audio as it is made, in the requested output_format (container defaults to raw). */
  async *stream(request: SynthesisRequest<ModelId | PackModelId>, options?: CallOptions): AsyncGenerator<Buffer> {
    const scope = this.begin(options)
    try {
      const resolved = await this.resolve(request, 'raw', scope)
      // The WAV header goes out with the first audio, so a transcript that fails to plan sends nothing.
      let header = resolved.format.container === 'wav' ? wavHeader(resolved.format) : undefined
      for await (const chunk of this.run(resolved, scope)) {
        if (chunk.audio.length === 0) continue  // a compressed chunk the encoder kept whole for later
        yield header ? Buffer.concat([header, chunk.audio]) : chunk.audio
        header = undefined
      }
      if (header) yield header  // breaks of zero length only: still a valid, empty WAV
    } finally {
      scope.end()
    }
  }

  /** The audio (base-64, container defaults to raw) with the transcript's words and their times. */
  async synthesizeWithTimestamps(request: SynthesisRequest<ModelId | PackModelId>, options?: CallOptions): Promise<TimestampedSpeech> {
    const scope = this.begin(options)
    let rendered: { audio: Buffer; words: TimedWord[] }
    try {
      rendered = await this.render(await this.resolve(request, 'raw', scope), scope)
    } finally {
      scope.end()
    }
    const { audio, words } = rendered
    return {
      audio_base64: audio.toString('base64'),
      alignment: {
        words: words.map((w) => w.text),
        word_start_times_milliseconds: words.map((w) => w.startMs),
        word_end_times_milliseconds: words.map((w) => w.endMs),
      },
    }
  }

  /** The transport-agnostic stream: audio chunks in the requested format (no WAV header; compressed containers give encoded bytes), each with its words. */
  async *speak(request: SynthesisRequest<ModelId | PackModelId>, options?: CallOptions): AsyncGenerator<SpeechChunk> {
    const scope = this.begin(options)
    try {
      yield* this.run(await this.resolve(request, 'raw', scope), scope)
    } finally {
      scope.end()
    }
  }

  /**
   * A writable speech session: write text as it comes (an LLM's tokens, a chat's messages), read
   * the audio as it is made. `request` is a synthesis request whose `transcript` is optional (it
   * is written at once). Audio and words equal those of the whole text sent in one request.
   */
  async open(request: SessionRequest<ModelId | PackModelId>, options?: CallOptions): Promise<SpeechSession> {
    const scope = this.begin(options)
    try {
      const parsed = parseSessionRequest(request, this.maxTranscriptChars)
      const resolved = await this.resolveParsed({ ...parsed, transcript: parsed.transcript ?? '' }, 'raw', scope)
      const session = this.session(resolved, scope, { whole: false, onFinish: () => scope.end() })
      if (parsed.transcript) session.write(parsed.transcript)
      return session
    } catch (error) {
      scope.end()
      throw error
    }
  }

  /** Native work in flight, for monitoring (and for tests that check cancellation stops it). */
  counters(): NativeCounters {
    return this.native.counters()
  }

  /** Aborts every call of this engine in flight (resolving, planning or streaming); later calls fail with ENGINE_CLOSED. */
  async close(): Promise<void> {
    this.closed = true
    for (const pack of this.packs) pack.model.unload()  // running streams keep theirs
    this.calls.abortAll(new TtsError('ENGINE_CLOSED', 'the engine was closed'))
    if (this.ownsVoiceStore) await this.voiceStore.close()
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  /** Speaks the calibration text with a base voice and tuning, and measures the speech. */
  private async measureRendering(backend: BackendKind, base: string, tuning: BackendTuning, scope: CallScope): Promise<VoiceAnalysis> {
    // The builtin model, even where a neural pack now serves its id: clones are fitted on the builtin backends.
    const model = DEFAULT_MODELS.find((m) => m.backend === backend && m.languages.includes('en'))
    if (!model) throw new TtsError('SYNTHESIS_FAILED', `no model speaks English on ${backend} to fit a cloned voice with`)
    const voice: StoredVoice = {
      record: { voice_id: 'calibration', voice_type: 'CUSTOM', name: 'calibration', description: '', created_at: '', updated_at: '', language: 'en', gender: 'Male' },
      rendering: { espeakVariant: base, flite: base, speed: 1, pitch: 1, tuning: { espeak: tuning, flite: tuning } },
    }
    return this.measureCalibration({ model, language: 'en', voice }, scope.signal)
  }

  /**
   * Renders the calibration text (a preview's outside English) and measures it as a sample is
   * measured. The render has its own scope under `signal`, so its cancel hooks go when it ends.
   */
  private async measureCalibration(request: Pick<ResolvedRequest, 'model' | 'language' | 'voice' | 'packTuning'>, signal: AbortSignal | undefined): Promise<VoiceAnalysis> {
    const format = { container: 'raw', encoding: 'pcm_f32le', sample_rate: 16000 } as const
    const transcript = request.language === 'en' ? CALIBRATION_TEXT : previewText(request.language)
    const renderScope = this.calls.begin(signal)
    try {
      const { audio } = await this.render({ ...request, transcript, speed: 1, format }, renderScope)
      return toAnalysis(await this.native.analysePcm(audio, format.sample_rate))
    } finally {
      renderScope.end()
    }
  }

  /**
   * A cloned voice's fit to the pack voice it speaks with on `model`, made on its first request
   * there (the calibration text rendered a few times on the pack) and kept for the engine's life.
   */
  private packTuning(model: ModelPack, voice: StoredVoice, language: Language, scope: CallScope): Promise<BackendTuning> | undefined {
    const { pack } = model
    if (!pack || !voice.analysis) return undefined
    const key = JSON.stringify([pack.modelId, voice.record.voice_id, voice.record.updated_at, language])
    let fit = this.packTunings.get(key)
    if (!fit) {
      // Not the caller's signal: other requests may wait for this fit too; close() still stops it.
      fit = fitPackTuning(voice.analysis, !takesWholeSpeedsOnly(pack), (packTuning) =>
        this.measureCalibration({ model, language, voice, packTuning }, undefined))
      this.packTunings.set(key, fit)
      fit.catch(() => this.packTunings.delete(key))  // a failed fit (the engine closed) is tried again next time
    }
    return abortable(fit, scope.signal)
  }

  private openStore(): VoiceStore {
    if (this.closed) throw new TtsError('ENGINE_CLOSED', 'the engine was closed')
    return this.voiceStore
  }

  /** Starts a call: checks its options and ties it to the caller's signal and to close(). */
  private begin(options: unknown): CallScope {
    const { signal } = parseWith(callOptionsSchema, options === undefined ? {} : options, 'call options')
    if (this.closed) throw new TtsError('ENGINE_CLOSED', 'the engine was closed')
    return this.calls.begin(signal)
  }

  private async findVoice(voiceId: string): Promise<StoredVoice> {
    let voice: StoredVoice | undefined
    try {
      voice = await this.openStore().get(voiceId)
    } catch (cause) {
      if (cause instanceof TtsError) throw cause
      throw new TtsError('SYNTHESIS_FAILED', `the voice store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    }
    if (!voice) throw voiceNotFound(voiceId)
    return voice
  }

  private async resolve(request: unknown, defaultContainer: OutputFormat['container'], scope: CallScope): Promise<ResolvedRequest> {
    return this.resolveParsed(parseSynthesisRequest(request, this.maxTranscriptChars), defaultContainer, scope)
  }

  private async resolveParsed(
    parsed: { transcript: string; model_id: string; voice: { id: string }; output_format?: unknown; language?: Language | undefined; speed: number },
    defaultContainer: OutputFormat['container'],
    scope: CallScope,
  ): Promise<ResolvedRequest> {
    const format = parseOutputFormat(parsed.output_format, defaultContainer)
    const model = this.models.get(parsed.model_id)
    const voice = await abortable(this.findVoice(parsed.voice.id), scope.signal)
    // A custom store's rendering is checked before anything is estimated or sent to the addon.
    const rendering = voiceRenderingSchema.safeParse(voice.rendering)
    if (!rendering.success) {
      throw new TtsError('INVALID_VOICE', `voice '${voice.record.voice_id}' cannot be rendered: ${rendering.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    }
    const language = parsed.language ?? voice.record.language
    if (!(LANGUAGES as readonly string[]).includes(language) || !model.languages.includes(language)) {
      const why = parsed.language === undefined ? `voice '${voice.record.name}' speaks '${language}', which` : `language '${language}'`
      throw new TtsError('INVALID_LANGUAGE', `${why} is not supported by ${model.id} (supported: ${model.languages.join(', ')})`)
    }
    if (model.pack && !Number.isInteger(voice.rendering.speed * parsed.speed) && takesWholeSpeedsOnly(model.pack)) {
      throw new TtsError('INVALID_REQUEST', `${model.id} is a Kokoro export whose speed input is an integer: it speaks at speed 1 or 2 only`)
    }
    const packTuning = await this.packTuning(model, voice, language, scope)
    return { transcript: parsed.transcript, speed: parsed.speed, model, language, voice, format, ...(packTuning && { packTuning }) }
  }

  private nativePlan(resolved: ResolvedRequest, chunks: NativePlan['chunks']): NativePlan {
    const { model, voice, language, format } = resolved
    const pcm = pcmFormat(format)
    if (model.pack) {
      const speaker = this.packVoices.speakerFor(model.pack, voice, language)
      return {
        backend: 'neural',
        model: model.pack.model,
        phonemizer: speaker.language === language ? speaker.phonemizer : ESPEAK_LANGUAGE_VOICE[language],
        voice: speaker.voice,
        speed: voice.rendering.speed * (resolved.packTuning?.speed ?? 1),
        requestSpeed: resolved.speed,
        pitch: voice.rendering.pitch,
        ...(resolved.packTuning && { transform: resolved.packTuning.transform }),
        ...pcm,
        // A neural chunk is one model run on `modelThreads` threads whose memory grows with its
        // length: one at a time, a stream holds one chunk's activations, and its first chunk
        // does not share the cores with the second.
        queueCapacity: 1,
        aheadSeconds: this.aheadSeconds,
        chunks,
      }
    }
    const flite = model.backend === 'flite'
    if (flite && !voice.rendering.flite) {
      throw new TtsError('VOICE_NOT_FOUND', `voice '${voice.record.name}' has no rendering for ${model.id}`)
    }
    const tuning = voice.rendering.tuning?.[flite ? 'flite' : 'espeak']
    return {
      backend: flite ? 'flite' : 'espeak',
      voice: flite ? voice.rendering.flite! : ESPEAK_LANGUAGE_VOICE[language] + voice.rendering.espeakVariant,
      speed: tuning?.speed ?? voice.rendering.speed,
      requestSpeed: resolved.speed,
      pitch: tuning?.pitch ?? voice.rendering.pitch,
      ...(tuning && { transform: tuning.transform }),
      ...pcm,
      queueCapacity: this.queueCapacity,
      aheadSeconds: this.aheadSeconds,
      chunks,
    }
  }

  /** The whole stream joined into one file in the requested container, with every word's time. */
  private async render(resolved: ResolvedRequest, scope: CallScope): Promise<{ audio: Buffer; words: TimedWord[] }> {
    const parts: Buffer[] = []
    const words: TimedWord[] = []
    let samples = 0
    for await (const chunk of this.run(resolved, scope)) {
      parts.push(chunk.audio)
      words.push(...chunk.words)
      samples += chunk.samples
    }
    const joined = Buffer.concat(parts)
    const { format } = resolved
    if (format.container === 'wav') return { audio: Buffer.concat([wavHeader(format, joined.length), joined]), words }
    // The whole file is known: its header can say how long it is.
    if (format.container === 'flac') return { audio: setFlacTotalSamples(joined, samples), words }
    return { audio: joined, words }
  }

  /**
   * A session for a resolved request. `whole`: the text is one request's transcript, checked as a
   * whole as it is planned (it has something to say, and not too much).
   */
  private session(resolved: ResolvedRequest, scope: CallScope, how: { whole: boolean; onFinish?: () => void }): SpeechSession {
    const nativePlan = this.nativePlan(resolved, [])  // a voice that cannot be rendered fails here
    const { format } = resolved
    const encoder = isCompressed(format) ? createEncoder(this.native, format) : undefined
    const backend = resolved.model.backend
    // A clone has a tuning per builtin backend, and one per pack voice it speaks with.
    const { rendering } = resolved.voice
    const voiceSpeed = backend === 'neural' ? rendering.speed * (resolved.packTuning?.speed ?? 1) : (rendering.tuning?.[backend].speed ?? rendering.speed)
    const speed = voiceSpeed * resolved.speed
    const session = new WritableSpeechSession(
      {
        plan: { language: resolved.language, backend: resolved.model.backend, signal: scope.signal },
        sampleRate: nativePlan.sampleRate,
        bytesPerSample: BYTES_PER_SAMPLE[nativePlan.encoding],
        maxPendingChars: this.maxTranscriptChars,
        maxAudioSeconds: this.maxAudioSeconds,
        ...(how.whole && { check: new SpeechPlanCheck({ maxAudioSeconds: this.maxAudioSeconds, speed }) }),
        start: (chunks) => {
          try {
            return new this.native.SynthStream({ ...nativePlan, chunks, leading: true, open: true })
          } catch (cause) {
            throw fromNativeError(cause, 'synthesis could not start')
          }
        },
        ...(how.onFinish && { finished: how.onFinish }),
      },
      scope,
    )
    return encoder ? new EncodedSpeechSession(session, encoder) : session
  }

  private async *run(resolved: ResolvedRequest, scope: CallScope): AsyncGenerator<SpeechChunk> {
    scope.throwIfAborted()
    const session = this.session(resolved, scope, { whole: true })
    session.write(resolved.transcript)
    session.end()
    yield* session
  }
}

/** Loads the addon, starts its engines off the main thread, and returns a ready engine. */
export async function createEngine<Packs extends Record<string, PackOptions> = {}>(
  options: EngineOptions<Packs> = {},
): Promise<Engine<Extract<keyof Packs, string>>> {
  parseWith(engineOptionsSchema, options, 'engine options')
  const native = loadNative()
  const espeakDataPath = options.espeakDataPath ?? bundledEspeakDataPath()
  try {
    await native.init({
      ...(options.threads !== undefined && { threads: options.threads }),
      threadNice: options.threadNice ?? DEFAULT_THREAD_NICE,
      ...(espeakDataPath !== undefined && { espeakDataPath }),
    })
  } catch (cause) {
    // Whatever the addon's code, an engine that cannot start is NATIVE_LOAD_FAILED.
    const error = fromNativeError(cause, 'the native engines failed to start')
    throw new TtsError('NATIVE_LOAD_FAILED', error.message, { cause, ...(error.extra && { extra: error.extra }) })
  }
  const load = {
    device: options.device ?? 'cpu',
    threads: options.modelThreads ?? 1,
    warn: options.onWarning ?? ((message: string) => process.emitWarning(message, 'SvcTtsWarning')),
  }
  // Packs load in parallel on the native pool; if one fails, the others are freed again.
  const results = await Promise.allSettled(Object.entries(options.models ?? {}).map(([id, pack]) => loadPack(native, id, pack, load)))
  const packs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) {
    for (const pack of packs) pack.model.unload()
    throw failed.reason
  }
  return new Engine(native, options, packs)
}
