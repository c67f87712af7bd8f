/**
 * The one loader of the native addon, and the hand-written contract of what it exports.
 * Nothing else in the library touches the `.node` file.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { TtsError, type ErrorCode } from './errors.js'
import { PACKAGE_ROOT } from './package-root.js'

export interface NativePiece {
  kind: 'text' | 'phonemes' | 'break'
  text?: string
  phonemes?: string
  ms?: number
  espeakVoice?: string
}

export interface NativePlan {
  backend: 'espeak' | 'flite' | 'neural'
  /** backend 'neural': the model loadModel gave, and the espeak-ng voice that phonemizes. */
  model?: NativeModel
  phonemizer?: string
  /** espeak voice, flite voice, Piper speaker id, or Kokoro style name / blend ("af_heart:0.7,am_adam:0.3"). */
  voice: string
  /** The voice's own rate (a cloned voice's fitted one). */
  speed: number
  /** The request's `speed` (0.5 to 2), multiplying the voice's rate. */
  requestSpeed: number
  pitch: number
  /** A cloned voice's pitch and formant scaling, applied to every piece. */
  transform?: NativeVoiceTransform
  sampleRate: number
  encoding: 'pcm_s16le' | 'pcm_f32le' | 'pcm_mulaw' | 'pcm_alaw'
  queueCapacity: number
  /** Seconds of unread audio at which the stream starts no more chunks. */
  aheadSeconds?: number
  /** The first chunk is a request's first audio: the pool runs it ahead of other streams' chunks. */
  leading?: boolean
  /** More chunks will be appended (append(), then end()). */
  open?: boolean
  /**
   * The reader joins all the audio into one: each chunk comes in one read once it is made (in
   * stretches of aheadSeconds when longer), not its first stretch at once for a listener waiting.
   */
  wholeChunks?: boolean
  chunks: NativeChunkPlan[]
}

/**
 * One chunk to synthesise, with what its neighbours mean for its edges: next to a break the
 * backend's edge silence is trimmed (the break is the silence heard); where speech was cut
 * mid-clause (`continues` / `continued`) it is trimmed to a short margin.
 */
export interface NativeChunkPlan {
  pieces: NativePiece[]
  breakBefore?: boolean
  breakAfter?: boolean
  continued?: boolean
  continues?: boolean
}

/** A word event: `char` is a code-point offset into the piece's text; samples count from the chunk's start. */
export interface NativeWord {
  piece: number
  char: number
  start: number
  end: number
}

/** A place in a chunk's text: a piece, and a code-point offset into its text. */
export interface NativeTextPosition {
  piece: number
  char: number
}

/**
 * A stretch of a chunk's audio, handed on as the backend makes it, with the words it completes:
 * a word comes with the stretch that holds the end of its audio, or with the first one after the
 * backend reported that end. A phoneme piece's one word spans the piece.
 */
export interface NativeChunk {
  audio: Buffer
  samples: number
  /** The chunk's last stretch. */
  last: boolean
  words: NativeWord[]
  /** Every word event of the text before this place has come, with this stretch or before. */
  reached: NativeTextPosition
}

export interface NativeSynthStream {
  /** The next stretch of audio, or null when the plan is spoken (or the stream was cancelled). One call at a time. */
  next(): Promise<NativeChunk | null>
  /** More chunks, for a stream made with `open: true`: synthesised after those before them. */
  append(chunks: NativeChunkPlan[]): void
  /** No more chunks: next() gives null once the last is read. */
  end(): void
  cancel(): void
}

/** One compressed-audio encoder (native/audio/encoder.h), validated in TypeScript first. */
export interface NativeEncoderConfig {
  codec: 'mp3' | 'opus' | 'flac'
  /** Of the PCM fed in; Opus takes 8000, 12000, 16000, 24000 or 48000. */
  sampleRate: number
  /** 16: samples are rounded to 16 bits before encoding; 24: float samples (FLAC stores 24 bits). */
  bitsPerSample: 16 | 24
  /** mp3 and opus, bits/s (mp3: a standard rate of the MPEG version of sampleRate). */
  bitRate?: number
  /** opus: the input rate its header names, when the PCM was resampled to an Opus rate. */
  headerSampleRate?: number
}

/**
 * Encodes one stream on the worker pool. Each call's bytes continue the previous ones, and all
 * the bytes so far form a decodable file (headers in the first). One call at a time.
 */
export interface NativeAudioEncoder {
  /** Float32 mono samples in; what they complete of the compressed stream out (maybe nothing). */
  encode(pcm: Buffer): Promise<Buffer>
  /** The rest of the stream: buffered samples, the codec's tail, end-of-stream marks. Last call. */
  finish(): Promise<Buffer>
}

export interface NativeCounters {
  activeTasks: number
  /** Native memory this thread's streams hold (their unread audio), as reported to V8: external memory that makes it collect dropped streams. */
  externalBytes: number
  liveStreams: number
  poolThreads: number
  queuedTasks: number
  /** Audio made and not yet read, over every stream, in bytes: what slow readers hold in memory. */
  unreadAudioBytes: number
  /** espeak-ng copies in use: one per pool thread, up to the copies the addon holds (0 before init). */
  espeakInstances: number
  /** The most espeak-ng copies that ever synthesised at once: above 1, texts ran side by side. */
  espeakBusyPeak: number
}

/** A Piper or Kokoro pack, validated in TypeScript; the addon checks the model against it. */
export type NativeModelSpec = {
  modelPath: string
  device?: 'auto' | 'cpu' | 'cuda'
  /** Intra-op threads of the session. */
  threads?: number
  /** libonnxruntime_providers_cuda.so (default: beside the addon). */
  cudaProviderPath?: string
  /** Read at load: its phonemes must all be known to the model. */
  probeText: string
  /** Run 1-D convolutions as 2-D ones (default true; native/onnx/conv_lift.h). */
  liftConvolutions?: boolean
  /** Where the rewritten model is kept between loads (native/onnx/model_cache.h), under this key; none without both. */
  cacheDir?: string
  cacheKey?: string
} & (
  | {
      type: 'piper'
      sampleRate: number
      espeakVoice: string
      noiseScale: number
      lengthScale: number
      noiseW: number
      numSpeakers: number
      hopLength: number
      phonemeIdMap: [string, number[]][]
      speakers: string[]
      /** Cut the model before its vocoder where it can be (default true). */
      windowedVocoder?: boolean
    }
  | { type: 'kokoro'; espeakVoice: string; vocab: [string, number][]; voices: { name: string; path: string }[] }
)

export interface NativeTensorSpec {
  name: string
  type: 'float32' | 'int64' | 'int32' | 'float16' | 'other'
  /** -1 marks a dynamic dimension. */
  shape: number[]
}

export interface NativeModelInfo {
  type: 'piper' | 'kokoro'
  /** Where the session runs. */
  device: 'cpu' | 'cuda'
  /** Device 'auto' fell back to the CPU: why. */
  fallbackReason?: string
  /** The 1-D convolutions running as 2-D ones; where none is though asked, why. */
  liftedConvolutions: number
  liftedConvolutionsWhy?: string
  /** 'cache': the rewritten model and what its checks found came from the cache, not made again. */
  loadedFrom: 'cache' | 'file'
  /** What was made could not be cached (the load went on without): why. */
  cacheWhy?: string
  sampleRate: number
  speakers: string[]
  hasDurations: boolean
  /** Piper: a request's first audio comes from a short window of the vocoder; else why not. */
  windowedVocoder?: boolean
  windowedVocoderWhy?: string
  inputs: NativeTensorSpec[]
  outputs: NativeTensorSpec[]
}

/**
 * A loaded Piper or Kokoro model. It holds the model's memory until unload() or until the object
 * is collected; streams already speaking with it keep it until they end.
 */
export interface NativeModel {
  /** One raw session run (for tests and tools): the named outputs. */
  run(inputs: NativeTensor[], outputs: string[]): Promise<NativeTensor[]>
  /** Lets the model go: plans and run() refuse it from now on. */
  unload(): void
}

export interface NativeTensor {
  name: string
  type: 'float32' | 'int64' | 'int32'
  shape: number[]
  data: Float32Array | BigInt64Array | Int32Array
}

/** What the native analysis measures of a stretch of speech (16 kHz, aubio and LPC). */
export interface NativeSpeechMeasures {
  durationSeconds: number
  speechSeconds: number
  voicedSeconds: number
  pitchHz: number
  pitchP10Hz: number
  pitchP90Hz: number
  /** Median formant spacing; 1000 Hz is a 17.5 cm vocal tract. */
  formantSpacingHz: number
  onsetsPerSecond: number
  loudnessDb: number
}

export interface NativeVoiceTransform {
  pitchScale: number
  formantScale: number
}

/**
 * What the addon exports. It checks every argument again (the library validates first): a value of
 * the wrong type, a required one missing or one out of range is a TypeError with code
 * ERR_SVC_INVALID_ARGUMENT that names it.
 */
export interface NativeAddon {
  init(options: { threads?: number; threadNice?: number; espeakDataPath?: string }): Promise<{ espeakSampleRate: number; poolThreads: number }>
  phonemize(text: string, espeakVoice: string, ipa: boolean): Promise<string>
  counters(): NativeCounters
  SynthStream: new (plan: NativePlan) => NativeSynthStream
  AudioEncoder: new (config: NativeEncoderConfig) => NativeAudioEncoder
  /**
   * Loads, checks and warms up a neural model off the main thread. Errors start with
   * MODEL_PACK_INVALID: or DEVICE_UNAVAILABLE:, but ONNX Runtime's own failure to open (code ERR_SVC_ONNX_LOAD).
   */
  loadModel(spec: NativeModelSpec): Promise<{ model: NativeModel; info: NativeModelInfo }>
  /** "1.29.0 (API 29)"; throws if the loaded library lacks the API version the addon needs. */
  onnxRuntimeVersion(): string
  /** Decodes an audio file (libsndfile) and measures it. Rejects with "CODE: message" for a bad sample. */
  analyseSample(file: Buffer, maxSeconds: number): Promise<NativeSpeechMeasures & { format: string }>
  /** Measures mono f32le PCM. */
  analysePcm(samples: Buffer, sampleRate: number): Promise<NativeSpeechMeasures>
  /** Pitch and formant scaling of mono f32le PCM (Rubber Band R3), same length out. */
  transformVoice(samples: Buffer, sampleRate: number, params: NativeVoiceTransform): Promise<Buffer>
  /**
   * Frees a Buffer's memory at once (it then reads as empty), when it spans an ArrayBuffer of its
   * own; a slice of a larger one is left as it is. Whether it was freed. V8 counts live
   * ArrayBuffers towards its next full collection, so audio already copied on should not wait for it.
   */
  releaseBuffer(buffer: Buffer): boolean
}

/** The TtsError code of each native error code (native/base/errors.h); anything else is SYNTHESIS_FAILED. */
const NATIVE_ERROR_CODES: Record<string, ErrorCode> = {
  ERR_SVC_ESPEAK_INIT: 'NATIVE_LOAD_FAILED',
  // ONNX Runtime, opened with the first neural pack, is missing from beside the addon or is another version.
  ERR_SVC_ONNX_LOAD: 'NATIVE_LOAD_FAILED',
  // A run of text the backends cannot read safely: the transcript is not too long, a part of it is.
  ERR_SVC_INPUT_TOO_LONG: 'INVALID_REQUEST',
  // The library validates before calling the addon: a refused argument is our bug, not the user's.
  ERR_SVC_INVALID_ARGUMENT: 'SYNTHESIS_FAILED',
  ERR_SVC_SYNTHESIS: 'SYNTHESIS_FAILED',
}

/** A TtsError for whatever the addon threw or rejected with, keeping its native code in `extra`. */
export function fromNativeError(cause: unknown, doing: string): TtsError {
  if (cause instanceof TtsError) return cause
  const nativeCode = (cause as { code?: unknown } | null)?.code
  const code = (typeof nativeCode === 'string' && NATIVE_ERROR_CODES[nativeCode]) || 'SYNTHESIS_FAILED'
  const message = cause instanceof Error ? cause.message : String(cause)
  return new TtsError(code, `${doing}: ${message}`, { cause, ...(typeof nativeCode === 'string' && { extra: { native_code: nativeCode } }) })
}

/**
 * A stretch as the addon's SynthStream gives it: the audio, and its numbers in one array,
 * [samples, last, reached piece, reached char, then piece, char, start, end of each word]. Made
 * into objects here, in JavaScript, where that costs a fraction of setting each property from C++.
 */
type PackedChunk = [audio: Buffer, numbers: Float64Array]

type AddonAsBuilt = Omit<NativeAddon, 'SynthStream'> & {
  // next() resolves with a PackedChunk or null; typed wider so that the class below may override it.
  SynthStream: new (plan: NativePlan) => Omit<NativeSynthStream, 'next'> & { next(): Promise<unknown> }
}

function unpackChunk([audio, numbers]: PackedChunk): NativeChunk {
  const words: NativeWord[] = []
  for (let i = 4; i < numbers.length; i += 4) words.push({ piece: numbers[i]!, char: numbers[i + 1]!, start: numbers[i + 2]!, end: numbers[i + 3]! })
  return { audio, samples: numbers[0]!, last: numbers[1] === 1, words, reached: { piece: numbers[2]!, char: numbers[3]! } }
}

function withChunksUnpacked(built: AddonAsBuilt): NativeAddon {
  class SynthStream extends built.SynthStream {
    override next(): Promise<NativeChunk | null> {
      return (super.next() as Promise<PackedChunk | null>).then((packed) => packed && unpackChunk(packed))
    }
  }
  return { ...built, SynthStream }
}

let loaded: { addon: NativeAddon; file: string } | undefined

/** What a user can do when no addon loads: the prebuilt one does not fit this machine, or is missing. */
const BUILD_FROM_SOURCE_HINT =
  'svc-tts ships a prebuilt addon for Linux x64 with glibc 2.34 or newer (Debian 12, Ubuntu 22.04 and later). ' +
  'Elsewhere build it in your project: install the build tools and libraries ' +
  '(Debian or Ubuntu: sudo apt-get install -y cmake ninja-build g++ libespeak-ng-dev espeak-ng-data flite1-dev ' +
  'libsoxr-dev libsndfile1-dev libaubio-dev librubberband-dev libmp3lame-dev libopus-dev libogg-dev libflac-dev), ' +
  'then run `npm rebuild svc-tts`.'

/**
 * Loads the addon once: a local build (build/Release) first, then prebuilds/ for this platform.
 * `SVC_TTS_NATIVE_BINDING` names an explicit `.node` file instead.
 */
export function loadNative(): NativeAddon {
  return load().addon
}

function load(): { addon: NativeAddon; file: string } {
  if (loaded) return loaded
  const file = addonFile()
  try {
    const module = { exports: {} as AddonAsBuilt }
    process.dlopen(module, file)
    loaded = { addon: withChunksUnpacked(module.exports), file }
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    throw new TtsError('NATIVE_LOAD_FAILED', `svc-tts could not load its native addon: ${reason}. ${BUILD_FROM_SOURCE_HINT}`, { cause })
  }
  return loaded
}

/**
 * The addon's file. The package carries one prebuilt addon a platform, named by prebuildify
 * (scripts/prebuild.sh: N-API, glibc); its path is known, so no resolver module is loaded for it,
 * which took about 4 ms of a `say` started from its snapshot. scripts/install.cjs looks in the same places.
 */
function addonFile(): string {
  const explicit = process.env.SVC_TTS_NATIVE_BINDING
  if (explicit) return path.resolve(explicit)
  const built = path.join(PACKAGE_ROOT, 'build/Release/svc_tts.node')
  if (existsSync(built)) return built
  return path.join(PACKAGE_ROOT, 'prebuilds', `${process.platform}-${process.arch}`, 'svc-tts.glibc.node')
}

let bundledData: { path: string | undefined } | undefined

/**
 * The espeak-ng data shipped beside the addon (the build copies the data of the very espeak-ng it
 * links in), or undefined for espeak-ng's own default, the system's data.
 */
export function bundledEspeakDataPath(): string | undefined {
  if (!bundledData) {
    const dir = path.join(path.dirname(load().file), 'espeak-ng-data')
    bundledData = { path: existsSync(path.join(dir, 'phondata')) ? dir : undefined }
  }
  return bundledData.path
}
