/**
 * The engine: the library's one entry. It delegates: requests to the gate (lib/engine/resolve.ts),
 * speech to writable speech sessions on native streams (lib/engine/speech.ts), voices to the voice
 * library (lib/voices/library.ts). Every entry point is built on a session, a transport-agnostic
 * stream of audio chunks that each know their words, so one-shot audio is exactly the streamed
 * chunks joined, and text written in pieces sounds the same.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { wavHeader, type Container } from '../audio/format.js'
import { TtsError } from '../errors.js'
import { fromNativeError, type NativeAddon, type NativeCounters } from '../native.js'
import type { LoadedPack } from '../neural/packs.js'
import { CombinedVoiceStore, PackVoiceStore } from '../neural/voices.js'
import { DEFAULT_MAX_AUDIO_SECONDS } from '../text/bounds.js'
import type { BackendKind, Language } from '../text/types.js'
import { CALIBRATION_RATE, calibrationText, VoiceLibrary, type VoiceRenderer } from '../voices/library.js'
import { DictionaryLibrary } from '../voices/dictionaries/library.js'
import { SqliteDictionaryStore } from '../voices/dictionaries/sqlite-store.js'
import type { DictionaryStore } from '../voices/dictionaries/types.js'
import { PREDEFINED_VOICES } from '../voices/predefined.js'
import { PREVIEW_MODEL_ID } from '../voices/preview.js'
import { SqliteVoiceStore } from '../voices/sqlite-store.js'
import type { BackendTuning, StoredVoice, VoiceStore } from '../voices/types.js'
import { toAlignment, type Alignment } from './alignment.js'
import { checkCallPolicy } from './call-policy.js'
import { CallTracker, type CallOptions, type CallScope } from './call-scope.js'
import { DEFAULT_MODELS, ModelRegistry, modelsWithPacks, type ModelEntry, type ModelId } from './models.js'
import { DEFAULT_MAX_TRANSCRIPT_CHARS, type EngineOptions } from './options.js'
import type { ParsedSpeechRequest, ParsedSynthesisRequest, SpeechSessionRequest, SynthesisRequest } from './requests.js'
import { RequestResolver, type RequestKind, type ResolvedRequest } from './resolve.js'
import { Speech, type SpeechBounds } from './speech.js'
import type { SpeechChunk, SpeechSession } from './speech-session.js'

export type { CallOptions } from './call-scope.js'
export type { EngineOptions } from './options.js'
export type { SpeechChunk, SpeechSession } from './speech-session.js'
export type { VoiceBatch } from '../voices/library.js'

export interface TimestampedSpeech {
  audio_base64: string
  alignment: Alignment
  /** SSML's `<mark>`s, in order, each at the start of the word after it (or the end); present only when the transcript has some. */
  marks?: { name: string; time_seconds: number }[]
}

/** SSML's `<voice name>`: a voice id, or the name of a predefined voice (any case). */
function voiceIdFor(name: string): string {
  const lower = name.toLowerCase()
  return PREDEFINED_VOICES.find((voice) => voice.record.name.toLowerCase() === lower)?.record.voice_id ?? name
}
/** What the synthesis calls take: a request, one the gate parsed (a route's body), or one it resolved. */
type Synthesis<PackModelId extends string> = SynthesisRequest<ModelId | PackModelId> | ParsedSynthesisRequest | ResolvedRequest

const CALIBRATION_FORMAT = { container: 'raw', encoding: 'pcm_f32le', sample_rate: CALIBRATION_RATE } as const

/** The voice library's file in `dataDir` (made if missing). */
function voicesFile(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })  // it holds people's recordings
  return path.join(dataDir, 'voices.db')
}

function openVoiceStore(dataDir: string | undefined): VoiceStore {
  return new SqliteVoiceStore(dataDir === undefined ? ':memory:' : voicesFile(dataDir))
}

/**
 * `PackModelId`: model ids beyond the SPEC's three, served by the neural packs of the `models`
 * option (createEngine infers them). Requests are typed with them and checked again at run time.
 */
export class Engine<PackModelId extends string = never> {
  readonly models: ModelRegistry
  /** The voice library: every operation of the SPEC's voice API. */
  readonly voices: VoiceLibrary
  /** Pronunciation dictionaries, kept in the voice library's file (in memory without a dataDir). */
  readonly dictionaries: DictionaryLibrary
  private readonly dictionaryStore: DictionaryStore
  private readonly ownsDictionaryStore: boolean
  private readonly store: VoiceStore
  private readonly ownsStore: boolean
  private readonly gate: RequestResolver
  private readonly speech: Speech
  private readonly calls = new CallTracker()

  constructor(
    private readonly native: NativeAddon,
    options: EngineOptions,
    private readonly packs: readonly LoadedPack[] = [],
  ) {
    const maxTranscriptChars = options.maxTranscriptChars ?? DEFAULT_MAX_TRANSCRIPT_CHARS
    this.models = new ModelRegistry(modelsWithPacks(packs))
    const packVoices = new PackVoiceStore(packs)
    this.ownsStore = options.voiceStore === undefined
    this.store = new CombinedVoiceStore(options.voiceStore ?? openVoiceStore(options.dataDir), packVoices)
    this.voices = new VoiceLibrary(native, this.store, this.renderer())
    this.ownsDictionaryStore = options.dictionaryStore === undefined
    this.dictionaryStore = options.dictionaryStore ?? new SqliteDictionaryStore(options.dataDir === undefined ? ':memory:' : voicesFile(options.dataDir))
    this.dictionaries = new DictionaryLibrary(this.dictionaryStore)
    const defaultDictionaries = options.pronunciationDictionaries ?? []
    this.gate = new RequestResolver(this.models, this.voices, { maxTranscriptChars, defaultDictionaries }, (model, voice, language, tuning) =>
      this.calibrate(model, voice, language, tuning), this.dictionaries,
    )
    this.speech = new Speech(native, packVoices, {
      queueCapacity: options.queueCapacity ?? 2,
      aheadSeconds: options.aheadSeconds ?? 5,
      maxTranscriptChars,
      maxAudioSeconds: options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS,
    }, (name, signal) => this.voices.find(voiceIdFor(name), signal))
  }

  /** One audio file for the whole transcript (container defaults to wav). */
  async synthesize(request: Synthesis<PackModelId>, options?: CallOptions): Promise<Buffer> {
    return this.within(options, async (scope) => (await this.speech.render(await this.resolveIn(request, 'synthesis', 'wav', scope), scope)).audio)
  }

  /** Audio as it is made, in the requested output_format (container defaults to raw). */
  async *stream(request: Synthesis<PackModelId>, options?: CallOptions): AsyncGenerator<Buffer> {
    const scope = this.calls.begin(options)
    try {
      const resolved = await this.resolveIn(request, 'synthesis', 'raw', scope)
      // The WAV header goes out with the first audio, so a transcript that fails to plan sends nothing.
      let header = resolved.format.container === 'wav' ? wavHeader(resolved.format) : undefined
      for await (const chunk of this.speech.run(resolved, scope)) {
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
  async synthesizeWithTimestamps(request: Synthesis<PackModelId>, options?: CallOptions): Promise<TimestampedSpeech> {
    const { audio, words, marks } = await this.within(options, async (scope) => this.speech.render(await this.resolveIn(request, 'synthesis', 'raw', scope), scope))
    const audioBase64 = audio.toString('base64')
    this.native.releaseBuffer(audio)
    return {
      audio_base64: audioBase64,
      alignment: toAlignment(words),
      ...(marks.length > 0 && { marks: marks.map((mark) => ({ name: mark.name, time_seconds: mark.timeMs / 1000 })) }),
    }
  }

  /** The transport-agnostic stream: audio chunks in the requested format (no WAV header; compressed containers give encoded bytes), each with its words. */
  async *speak(request: Synthesis<PackModelId>, options?: CallOptions): AsyncGenerator<SpeechChunk> {
    const scope = this.calls.begin(options)
    try {
      yield* this.speech.run(await this.resolveIn(request, 'synthesis', 'raw', scope), scope)
    } finally {
      scope.end()
    }
  }

  /**
   * speak() from planned chunk `firstChunk` on (counted from 0, as speak()'s `endsChunk` counts
   * them): the chunks before are planned, not synthesised. Each chunk's audio depends on the chunk
   * alone, so in a raw container the chunks equal speak()'s from that one on, byte for byte: a long
   * job resumes where its last finished chunk ended. Offsets and word times count from the first
   * chunk spoken; a compressed container's encoder starts afresh. `bounds`, where given, replace the
   * engine's maxTranscriptChars and maxAudioSeconds for this text (a long-form job has its own).
   */
  async *speakFrom(request: Synthesis<PackModelId>, firstChunk: number, options?: CallOptions & { bounds?: SpeechBounds }): AsyncGenerator<SpeechChunk> {
    if (!Number.isSafeInteger(firstChunk) || firstChunk < 0) throw new TtsError('INVALID_REQUEST', 'firstChunk must be a whole number of chunks, 0 or more')
    const { bounds, ...call } = options ?? {}
    if (bounds && !(Number.isSafeInteger(bounds.maxTranscriptChars) && bounds.maxTranscriptChars > 0 && bounds.maxAudioSeconds > 0)) {
      throw new TtsError('INVALID_REQUEST', 'bounds need a whole maxTranscriptChars and a maxAudioSeconds, both above 0')
    }
    const scope = this.calls.begin(options && call)
    try {
      const resolved = await this.gate.resolve(request, 'synthesis', 'raw', scope.signal, bounds?.maxTranscriptChars)
      checkCallPolicy(resolved, scope.caller)
      yield* this.speech.run(resolved, scope, firstChunk, bounds)
    } finally {
      scope.end()
    }
  }

  /**
   * A writable speech session: write text as it comes (an LLM's tokens, a chat's messages), read
   * the audio as it is made. `request` is a synthesis request whose `transcript` is optional (it
   * is written at once). Audio and words equal those of the whole text sent in one request.
   */
  async open(request: SpeechSessionRequest<ModelId | PackModelId> | ParsedSpeechRequest | ResolvedRequest, options?: CallOptions): Promise<SpeechSession> {
    const scope = this.calls.begin(options)
    try {
      const resolved = await this.resolveIn(request, 'session', 'raw', scope)
      const session = this.speech.session(resolved, scope, { whole: false, onFinish: () => scope.end() })
      if (resolved.transcript) session.write(resolved.transcript)
      return session
    } catch (error) {
      scope.end()
      throw error
    }
  }

  /**
   * A session request resolved once for many sessions (a WebSocket connection's contexts): its
   * model, voice and format looked up and checked now, and trusted by `open` as it is.
   */
  async resolve(request: SpeechSessionRequest<ModelId | PackModelId>, options?: CallOptions & { container?: Container }): Promise<ResolvedRequest> {
    const { container = 'raw', ...callOptions } = options ?? {}
    return this.within(callOptions, (scope) => this.resolveIn(request, 'session', container, scope))
  }

  /** Native work in flight, for monitoring (and for tests that check cancellation stops it). */
  counters(): NativeCounters {
    return this.native.counters()
  }

  /** The ONNX Runtime the neural packs run on: "1.29.0 (API 29)". The first call opens it, as the first pack does. */
  onnxRuntimeVersion(): string {
    try {
      return this.native.onnxRuntimeVersion()
    } catch (cause) {
      throw fromNativeError(cause, 'ONNX Runtime')
    }
  }

  /** Aborts every call of this engine in flight (resolving, planning or streaming); later calls fail with ENGINE_CLOSED. */
  async close(): Promise<void> {
    for (const pack of this.packs) pack.model.unload()  // running streams keep theirs
    this.calls.close(new TtsError('ENGINE_CLOSED', 'the engine was closed'))
    if (this.ownsStore) await this.store.close()
    if (this.ownsDictionaryStore) await this.dictionaryStore.close()
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  private async resolveIn(request: unknown, kind: RequestKind, container: Container, scope: CallScope): Promise<ResolvedRequest> {
    const resolved = await this.gate.resolve(request, kind, container, scope.signal)
    checkCallPolicy(resolved, scope.caller)
    return resolved
  }

  /** Runs `work` as one call of the engine: under the caller's signal and close(), ended however it ends. */
  private async within<T>(options: unknown, work: (scope: CallScope) => Promise<T>): Promise<T> {
    const scope = this.calls.begin(options)
    try {
      return await work(scope)
    } finally {
      scope.end()
    }
  }

  /** Speech for the voice library: calibration renders and previews, as calls of this engine. */
  private renderer(): VoiceRenderer {
    return {
      begin: (options) => this.calls.begin(options),
      assertOpen: () => this.calls.assertOpen(),
      // The builtin model, even where a neural pack now serves its id: clones are fitted on the builtin backends.
      calibration: (backend: BackendKind, voice: StoredVoice, text: string, signal: AbortSignal) => {
        const model = DEFAULT_MODELS.find((m) => m.backend === backend && m.languages.includes('en'))
        if (!model) throw new TtsError('SYNTHESIS_FAILED', `no model speaks English on ${backend} to fit a cloned voice with`)
        return this.renderCalibration({ model, language: 'en', voice }, text, signal)
      },
      preview: (voice: StoredVoice, text: string, signal: AbortSignal) =>
        this.within({ signal }, async (scope) => {
          const model = this.models.get(PREVIEW_MODEL_ID)
          const format = { container: 'wav', encoding: 'pcm_s16le', sample_rate: 22050 } as const
          return (await this.speech.render({ transcript: text, speed: 1, model, language: voice.record.language, voice, format }, scope)).audio
        }),
    }
  }

  /** A cloned voice's calibration on a pack, under no caller's signal: every request waiting for the fit shares it. */
  private calibrate(model: ModelEntry, voice: StoredVoice, language: Language, packTuning: BackendTuning): Promise<Buffer> {
    return this.within(undefined, (scope) => this.renderCalibration({ model, language, voice, packTuning }, calibrationText(language), scope.signal))
  }

  /** Mono float PCM at the calibration rate; the render has its own scope under `signal`, so its cancel hooks go when it ends. */
  private renderCalibration(request: Pick<ResolvedRequest, 'model' | 'language' | 'voice' | 'packTuning'>, transcript: string, signal: AbortSignal): Promise<Buffer> {
    return this.within({ signal }, async (scope) => (await this.speech.render({ ...request, transcript, speed: 1, format: CALIBRATION_FORMAT }, scope)).audio)
  }
}
