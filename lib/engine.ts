/**
 * The engine: resolves model and voice, plans the transcript, and runs the plan on a native
 * stream. Every entry point is built on `speak()`, a transport-agnostic stream of audio chunks
 * that each know their words, so one-shot audio is exactly the streamed chunks joined.
 */
import { AlignmentBuilder, type Alignment, type TimedWord } from './alignment.js'
import { BYTES_PER_SAMPLE, wavHeader, type OutputFormat } from './audio/format.js'
import { CallTracker, type CallScope } from './call-scope.js'
import { TtsError } from './errors.js'
import { ESPEAK_LANGUAGE_VOICE, ModelRegistry, modelsWithPacks, type ModelPack } from './models.js'
import { loadNative, type NativeAddon, type NativeCounters, type NativePlan } from './native.js'
import type { Device, PackOptions } from './neural/options.js'
import { loadPack, type LoadedPack } from './neural/packs.js'
import { CombinedVoiceStore, PackVoiceStore } from './neural/voices.js'
import {
  callOptionsSchema,
  DEFAULT_MAX_TRANSCRIPT_CHARS,
  engineOptionsSchema,
  listVoicesSchema,
  parseOutputFormat,
  parseSynthesisRequest,
  parseWith,
  voiceRenderingSchema,
} from './schemas.js'
import { checkSpeechPlan, DEFAULT_MAX_AUDIO_SECONDS } from './text/bounds.js'
import { planSpeech } from './text/index.js'
import { LANGUAGES, type Language } from './text/types.js'
import { PredefinedVoiceStore } from './voices/memory-store.js'
import type { ListVoicesOptions, StoredVoice, VoicePage, VoiceRecord, VoiceStore } from './voices/types.js'

export interface EngineOptions {
  /** Native synthesis threads (default: CPU count, 2 to 8). Fixed for the process by the first engine. */
  threads?: number
  /** Chunks synthesized ahead of the consumer before synthesis waits (default 2). */
  queueCapacity?: number
  /** Longest transcript accepted, in UTF-16 characters (default 100 000). */
  maxTranscriptChars?: number
  /** Longest audio of one request in seconds, breaks included (default 1800): estimated before synthesis, enforced during it. */
  maxAudioSeconds?: number
  /** espeak-ng data directory (default: the system's). */
  espeakDataPath?: string
  voiceStore?: VoiceStore
  /** Model ids served by neural packs: `{ 'svc_pro_v1.0': { type: 'piper', path: '/voices/x.onnx' } }`. */
  models?: Record<string, PackOptions>
  /** Where neural packs run: 'auto' (CUDA if it loads, else the CPU, with a warning), 'cpu' (default), 'cuda'. */
  device?: Device
  /** Intra-op threads of each neural session (default 1: concurrent requests run in parallel instead). */
  modelThreads?: number
  /** Where load-time warnings go (a device fallback); default process.emitWarning. */
  onWarning?: (message: string) => void
}

export interface CallOptions {
  signal?: AbortSignal
}

/** One piece of a speech stream: audio in the requested encoding (no container) and its words. */
export interface SpeechChunk {
  audio: Buffer
  samples: number
  /** Sample offset of this chunk in the whole stream. */
  offsetSamples: number
  words: TimedWord[]
}

export interface TimestampedSpeech {
  audio_base64: string
  alignment: Alignment
}

interface ResolvedRequest {
  transcript: string
  model: ModelPack
  language: Language
  voice: StoredVoice
  format: OutputFormat
}

export class Engine {
  readonly models: ModelRegistry
  private readonly voiceStore: VoiceStore
  private readonly packVoices: PackVoiceStore
  private readonly queueCapacity: number
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
    this.packVoices = new PackVoiceStore(packs)
    this.voiceStore = new CombinedVoiceStore(options.voiceStore ?? new PredefinedVoiceStore(), this.packVoices)
    this.queueCapacity = options.queueCapacity ?? 2
    this.maxTranscriptChars = options.maxTranscriptChars ?? DEFAULT_MAX_TRANSCRIPT_CHARS
    this.maxAudioSeconds = options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS
  }

  readonly voices = {
    list: async (options: ListVoicesOptions = {}): Promise<VoicePage> =>
      this.voiceStore.list(parseWith(listVoicesSchema, options, 'voice list options')),
    get: async (voiceId: string): Promise<VoiceRecord> => (await this.findVoice(voiceId)).record,
  }

  /** One audio file for the whole transcript (container defaults to wav). */
  async synthesize(request: unknown, options?: CallOptions): Promise<Buffer> {
    const scope = this.begin(options)
    try {
      return (await this.render(await this.resolve(request, 'wav', scope), scope)).audio
    } finally {
      scope.end()
    }
  }

  /** Audio as it is made, in the requested output_format (container defaults to raw). */
  async *stream(request: unknown, options?: CallOptions): AsyncGenerator<Buffer> {
    const scope = this.begin(options)
    try {
      const resolved = await this.resolve(request, 'raw', scope)
      // The WAV header goes out with the first audio, so a transcript that fails to plan sends nothing.
      let header = resolved.format.container === 'wav' ? wavHeader(resolved.format) : undefined
      for await (const chunk of this.run(resolved, scope)) {
        yield header ? Buffer.concat([header, chunk.audio]) : chunk.audio
        header = undefined
      }
      if (header) yield header  // breaks of zero length only: still a valid, empty WAV
    } finally {
      scope.end()
    }
  }

  /** The audio (base-64, container defaults to raw) with the transcript's words and their times. */
  async synthesizeWithTimestamps(request: unknown, options?: CallOptions): Promise<TimestampedSpeech> {
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

  /** The transport-agnostic stream: raw audio chunks in the requested encoding, each with its words. */
  async *speak(request: unknown, options?: CallOptions): AsyncGenerator<SpeechChunk> {
    const scope = this.begin(options)
    try {
      yield* this.run(await this.resolve(request, 'raw', scope), scope)
    } finally {
      scope.end()
    }
  }

  /** Native work in flight, for monitoring (and for tests that check cancellation stops it). */
  counters(): NativeCounters {
    return this.native.counters()
  }

  /** Aborts every call of this engine in flight (resolving, planning or streaming); later calls fail with ENGINE_CLOSED. */
  async close(): Promise<void> {
    this.closed = true
    for (const pack of this.packs) this.native.unloadModel(pack.info.handle)  // running streams keep theirs
    this.calls.abortAll(new TtsError('ENGINE_CLOSED', 'the engine was closed'))
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  /** Starts a call: checks its options and ties it to the caller's signal and to close(). */
  private begin(options: unknown): CallScope {
    const { signal } = parseWith(callOptionsSchema, options ?? {}, 'call options')
    if (this.closed) throw new TtsError('ENGINE_CLOSED', 'the engine was closed')
    return this.calls.begin(signal)
  }

  private async findVoice(voiceId: string): Promise<StoredVoice> {
    let voice: StoredVoice | undefined
    try {
      voice = await this.voiceStore.get(voiceId)
    } catch (cause) {
      if (cause instanceof TtsError) throw cause
      throw new TtsError('SYNTHESIS_FAILED', `the voice store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    }
    if (!voice) throw new TtsError('VOICE_NOT_FOUND', `no voice has id '${voiceId}'`)
    return voice
  }

  private async resolve(request: unknown, defaultContainer: OutputFormat['container'], scope: CallScope): Promise<ResolvedRequest> {
    const parsed = parseSynthesisRequest(request, this.maxTranscriptChars)
    const format = parseOutputFormat(parsed.output_format, defaultContainer)
    const model = this.models.get(parsed.model_id)
    const voice = await this.findVoice(parsed.voice.id)
    scope.throwIfAborted()
    // A custom store's rendering is checked before anything is estimated or sent to the addon.
    const rendering = voiceRenderingSchema.safeParse(voice.rendering)
    if (!rendering.success) {
      throw new TtsError('INVALID_VOICE', `voice '${voice.record.voice_id}' cannot be rendered: ${rendering.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    }
    const language = (parsed.language ?? voice.record.language) as Language
    if (!(LANGUAGES as readonly string[]).includes(language) || !model.languages.includes(language)) {
      const why = parsed.language === undefined ? `voice '${voice.record.name}' speaks '${language}', which` : `language '${language}'`
      throw new TtsError('INVALID_LANGUAGE', `${why} is not supported by ${model.id} (supported: ${model.languages.join(', ')})`)
    }
    return { transcript: parsed.transcript, model, language, voice, format }
  }

  private nativePlan(resolved: ResolvedRequest, chunks: NativePlan['chunks']): NativePlan {
    const { model, voice, language, format } = resolved
    if (model.pack) {
      const speaker = this.packVoices.speakerFor(model.pack, voice, language)
      return {
        backend: 'neural',
        model: model.pack.info.handle,
        phonemizer: speaker.language === language ? speaker.phonemizer : ESPEAK_LANGUAGE_VOICE[language],
        voice: speaker.voice,
        speed: voice.rendering.speed,
        pitch: voice.rendering.pitch,
        sampleRate: format.sample_rate,
        encoding: format.encoding,
        queueCapacity: this.queueCapacity,
        chunks,
      }
    }
    const flite = model.backend === 'flite'
    if (flite && !voice.rendering.flite) {
      throw new TtsError('VOICE_NOT_FOUND', `voice '${voice.record.name}' has no rendering for ${model.id}`)
    }
    return {
      backend: flite ? 'flite' : 'espeak',
      voice: flite ? voice.rendering.flite! : ESPEAK_LANGUAGE_VOICE[language] + voice.rendering.espeakVariant,
      speed: voice.rendering.speed,
      pitch: voice.rendering.pitch,
      sampleRate: format.sample_rate,
      encoding: format.encoding,
      queueCapacity: this.queueCapacity,
      chunks,
    }
  }

  /** The whole stream joined into one file in the requested container, with every word's time. */
  private async render(resolved: ResolvedRequest, scope: CallScope): Promise<{ audio: Buffer; words: TimedWord[] }> {
    const parts: Buffer[] = []
    const words: TimedWord[] = []
    for await (const chunk of this.run(resolved, scope)) {
      parts.push(chunk.audio)
      words.push(...chunk.words)
    }
    const pcm = Buffer.concat(parts)
    const audio = resolved.format.container === 'wav' ? Buffer.concat([wavHeader(resolved.format, pcm.length), pcm]) : pcm
    return { audio, words }
  }

  private async *run(resolved: ResolvedRequest, scope: CallScope): AsyncGenerator<SpeechChunk> {
    scope.throwIfAborted()
    const plan = await planSpeech(resolved.transcript, { language: resolved.language, backend: resolved.model.backend, signal: scope.signal })
    scope.throwIfAborted()
    checkSpeechPlan(plan, { maxAudioSeconds: this.maxAudioSeconds, speed: resolved.voice.rendering.speed })
    const stream = new this.native.SynthStream(this.nativePlan(resolved, plan.chunks))
    scope.onCancel(() => stream.cancel())
    const maxSamples = this.maxAudioSeconds * resolved.format.sample_rate

    const alignment = new AlignmentBuilder(plan, resolved.format.sample_rate)
    const width = BYTES_PER_SAMPLE[resolved.format.encoding]
    let offsetSamples = 0
    try {
      for (let index = 0; ; index++) {
        const chunk = await stream.next().catch((cause: unknown) => {
          throw new TtsError('SYNTHESIS_FAILED', `synthesis failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
        })
        scope.throwIfAborted()
        if (!chunk) return
        if (chunk.audio.length !== chunk.samples * width) throw new TtsError('SYNTHESIS_FAILED', 'native chunk size mismatch')
        if (offsetSamples + chunk.samples > maxSamples) {
          throw new TtsError('AUDIO_TOO_LONG', `the audio ran past the limit of ${this.maxAudioSeconds} s a request`, { extra: { max_seconds: this.maxAudioSeconds } })
        }
        const words = alignment.addChunk(index, chunk, offsetSamples)
        yield { audio: chunk.audio, samples: chunk.samples, offsetSamples, words }
        offsetSamples += chunk.samples
      }
    } finally {
      stream.cancel()  // a consumer that stops early stops the native work too
    }
  }
}

/** Loads the addon, starts its engines off the main thread, and returns a ready engine. */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  parseWith(engineOptionsSchema, options, 'engine options')
  const native = loadNative()
  try {
    await native.init({
      ...(options.threads !== undefined && { threads: options.threads }),
      ...(options.espeakDataPath !== undefined && { espeakDataPath: options.espeakDataPath }),
    })
  } catch (cause) {
    throw new TtsError('NATIVE_LOAD_FAILED', `the native engines failed to start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
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
    for (const pack of packs) native.unloadModel(pack.info.handle)
    throw failed.reason
  }
  return new Engine(native, options, packs)
}
