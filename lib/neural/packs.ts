/**
 * Loads Piper and Kokoro packs into the addon: reads and validates their config files here
 * (policy), then lets the native side load the session off the main thread, check its inputs and
 * outputs against the config, read a probe sentence and warm up. A bad pack fails here, at
 * load, with MODEL_PACK_INVALID (or DEVICE_UNAVAILABLE); never at a request.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { fromNativeError, type NativeAddon, type NativeModel, type NativeModelInfo, type NativeModelSpec } from '../native.js'
import { LANGUAGES, type Language } from '../text/types.js'
import { KOKORO_VOCAB } from './kokoro-vocab.js'
import type { Device, PackOptions } from './options.js'

/** A voice a pack speaks with: a Piper speaker, a Kokoro style file, or a blend of styles. */
export interface PackSpeaker {
  /** Name within the pack (Piper speaker name, Kokoro style name or blend name). */
  name: string
  /** What the native backend takes as the voice: a Piper sid, a Kokoro style name or blend spec. */
  voice: string
  language: Language
  gender: 'Male' | 'Female' | 'Unknown'
  /** The espeak-ng voice that phonemizes for this speaker. */
  phonemizer: string
}

export interface LoadedPack {
  modelId: string
  type: 'piper' | 'kokoro'
  /** Stable name of the pack (the file or directory name), part of its voices' ids. */
  name: string
  path: string
  /** The loaded model: plans speak with it; close() unloads it. */
  model: NativeModel
  info: NativeModelInfo
  languages: Language[]
  speakers: PackSpeaker[]
}

function packError(modelId: string, message: string, cause?: unknown): TtsError {
  return new TtsError('MODEL_PACK_INVALID', `model pack for ${modelId}: ${message}`, cause === undefined ? {} : { cause })
}

/** Sample rates voices are trained at; anything else in a config is a typo (Piper's 22500). */
const STANDARD_RATES = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000]

/** A probe sentence per language: read at load to prove the phonemizer and the model agree. */
const PROBES: Partial<Record<Language, string>> = {
  en: 'Hello world, this is a test.',
  es: 'Hola mundo, esto es una prueba.',
  fr: 'Bonjour le monde, ceci est un essai.',
  de: 'Hallo Welt, das ist ein Test.',
  it: 'Ciao mondo, questa è una prova.',
  pt: 'Olá mundo, isto é um teste.',
}

function probeFor(language: Language): string {
  return PROBES[language] ?? 'test'
}

/** The language an espeak-ng voice name speaks (en-us -> en, cmn -> zh). */
function languageOfEspeakVoice(voice: string): Language | undefined {
  const base = voice.toLowerCase().split(/[-_]/)[0] ?? ''
  const language = base === 'cmn' ? 'zh' : base
  return (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : undefined
}

const piperConfigSchema = z.object({
  audio: z.object({ sample_rate: z.number().int() }),
  espeak: z.object({ voice: z.string().min(1) }),
  inference: z.object({ noise_scale: z.number(), length_scale: z.number().positive(), noise_w: z.number() }).partial().optional(),
  phoneme_type: z.string().optional(),
  phoneme_id_map: z.record(z.string(), z.array(z.number().int().min(0)).min(1)),
  num_symbols: z.number().int().positive(),
  num_speakers: z.number().int().positive(),
  speaker_id_map: z.record(z.string(), z.number().int().min(0)).optional(),
  hop_length: z.number().int().positive().optional(),
})

function readJson(modelId: string, file: string, what: string): unknown {
  if (!existsSync(file)) throw packError(modelId, `${what} ${file} does not exist`)
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch (cause) {
    throw packError(modelId, `${what} ${file} is not valid JSON`, cause)
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')
}

interface PreparedPack {
  spec: NativeModelSpec
  name: string
  languages: Language[]
  speakers: (info: NativeModelInfo) => PackSpeaker[]
}

function preparePiper(modelId: string, options: Extract<PackOptions, { type: 'piper' }>): PreparedPack {
  const modelPath = path.resolve(options.path)
  if (!existsSync(modelPath)) throw packError(modelId, `model file ${modelPath} does not exist`)
  const configPath = path.resolve(options.config ?? `${modelPath}.json`)
  const parsed = piperConfigSchema.safeParse(readJson(modelId, configPath, 'config'))
  if (!parsed.success) throw packError(modelId, `config ${configPath} is not a Piper voice config: ${describeIssues(parsed.error)}`)
  const config = parsed.data
  const rate = config.audio.sample_rate
  if (!STANDARD_RATES.includes(rate)) {
    throw packError(modelId, `audio.sample_rate ${rate} in ${configPath} is not a sample rate voices are trained at (${STANDARD_RATES.join(', ')})`)
  }
  if ((config.phoneme_type ?? 'espeak') !== 'espeak') {
    throw packError(modelId, `phoneme_type '${config.phoneme_type}' is not supported (only espeak)`)
  }
  for (const [symbol, ids] of Object.entries(config.phoneme_id_map)) {
    const bad = ids.find((id) => id >= config.num_symbols)
    if (bad !== undefined) throw packError(modelId, `phoneme_id_map gives '${symbol}' id ${bad}, not below num_symbols ${config.num_symbols}`)
  }
  const language = languageOfEspeakVoice(config.espeak.voice)
  if (!language) throw packError(modelId, `espeak.voice '${config.espeak.voice}' is not a language svc-tts speaks`)
  const names = Object.entries(config.speaker_id_map ?? {}).sort((a, b) => a[1] - b[1])
  const speakerNames = Array.from({ length: config.num_speakers }, (_, sid) => names.find(([, id]) => id === sid)?.[0] ?? (config.num_speakers > 1 ? `speaker ${sid}` : 'default'))
  const name = path.basename(modelPath).replace(/\.onnx$/, '')
  return {
    name,
    languages: [language],
    spec: {
      type: 'piper',
      modelPath,
      sampleRate: rate,
      espeakVoice: config.espeak.voice,
      noiseScale: config.inference?.noise_scale ?? 0.667,
      lengthScale: config.inference?.length_scale ?? 1,
      noiseW: config.inference?.noise_w ?? 0.8,
      numSpeakers: config.num_speakers,
      hopLength: config.hop_length ?? 256,
      phonemeIdMap: Object.entries(config.phoneme_id_map),
      speakers: speakerNames,
      probeText: probeFor(language),
      windowedVocoder: options.windowedVocoder ?? true,
      liftConvolutions: options.liftConvolutions ?? true,
    },
    speakers: () =>
      speakerNames.map((speaker, sid) => ({
        name: speaker,
        voice: String(sid),
        language,
        gender: options.genders?.[speaker] ?? 'Unknown',
        phonemizer: config.espeak.voice,
      })),
  }
}

/** Kokoro's voice names start with a language letter and f or m (MODELS.md §2.5): af_heart. */
const KOKORO_LANGUAGES: Record<string, [Language, string]> = {
  a: ['en', 'en-us'], b: ['en', 'en-gb'], e: ['es', 'es'], f: ['fr', 'fr-fr'], h: ['hi', 'hi'],
  i: ['it', 'it'], p: ['pt', 'pt-br'], j: ['ja', 'ja'], z: ['zh', 'cmn'],
}

export function kokoroVoiceTraits(name: string): Pick<PackSpeaker, 'language' | 'gender' | 'phonemizer'> | undefined {
  const entry = KOKORO_LANGUAGES[name[0] ?? '']
  if (!entry) return undefined
  const gender = name[1] === 'f' ? 'Female' : name[1] === 'm' ? 'Male' : 'Unknown'
  return { language: entry[0], gender, phonemizer: entry[1] }
}

function kokoroVocab(modelId: string, directory: string): [string, number][] {
  const config = path.join(directory, 'config.json')
  const tokenizer = path.join(directory, 'tokenizer.json')
  const vocabSchema = z.record(z.string(), z.number().int().min(0))
  const found = existsSync(config)
    ? (readJson(modelId, config, 'config') as { vocab?: unknown }).vocab
    : existsSync(tokenizer)
      ? (readJson(modelId, tokenizer, 'tokenizer') as { model?: { vocab?: unknown } }).model?.vocab
      : undefined
  if (found === undefined) return KOKORO_VOCAB.map(([s, id]) => [s, id])
  const parsed = vocabSchema.safeParse(found)
  if (!parsed.success) throw packError(modelId, `the vocabulary in ${directory} is not a map of symbols to ids`)
  return Object.entries(parsed.data).filter(([, id]) => id > 0)  // 0 is the pad ('$' in tokenizer.json)
}

function prepareKokoro(modelId: string, options: Extract<PackOptions, { type: 'kokoro' }>): PreparedPack {
  const given = path.resolve(options.path)
  if (!existsSync(given)) throw packError(modelId, `${given} does not exist`)
  const directory = statSync(given).isDirectory() ? given : path.dirname(given)
  const candidates = statSync(given).isDirectory() ? ['model.onnx', 'onnx/model.onnx', 'kokoro-v1.0.onnx'].map((f) => path.join(directory, f)) : [given]
  const modelPath = candidates.find((file) => existsSync(file))
  if (!modelPath) throw packError(modelId, `no model.onnx (or onnx/model.onnx) in ${directory}`)
  const voicesDir = path.join(directory, 'voices')
  const files = existsSync(voicesDir) ? readdirSync(voicesDir).filter((f) => f.endsWith('.bin')).sort() : []
  const styles = files.map((file) => ({ name: file.slice(0, -4), path: path.join(voicesDir, file) }))
  if (styles.length === 0) throw packError(modelId, `no voice style files (voices/<name>.bin) in ${directory}`)

  const speakers: PackSpeaker[] = []
  for (const style of styles) {
    const traits = kokoroVoiceTraits(style.name)
    if (traits) speakers.push({ name: style.name, voice: style.name, ...traits })
  }
  for (const [blend, weights] of Object.entries(options.blends ?? {})) {
    const parts = Object.entries(weights)
    const missing = parts.find(([style]) => !styles.some((s) => s.name === style))
    if (missing || parts.length === 0) throw packError(modelId, `blend '${blend}' names style '${missing?.[0] ?? ''}', which the pack lacks`)
    const first = speakers.find((s) => s.name === parts[0]![0])
    if (!first) throw packError(modelId, `blend '${blend}' starts with a style of no known language`)
    speakers.push({ ...first, name: blend, voice: parts.map(([style, weight]) => `${style}:${weight}`).join(',') })
  }
  if (speakers.length === 0) throw packError(modelId, `no voice file name in ${voicesDir} says its language (af_heart, bm_george, ...)`)
  const first = speakers[0]!
  return {
    name: path.basename(directory),
    languages: [...new Set(speakers.map((s) => s.language))],
    spec: {
      type: 'kokoro',
      modelPath,
      espeakVoice: first.phonemizer,
      vocab: kokoroVocab(modelId, directory),
      voices: styles,
      probeText: probeFor(first.language),
      liftConvolutions: options.liftConvolutions ?? true,
    },
    speakers: () => speakers,
  }
}

export interface LoadOptions {
  device: Device
  threads: number
  warn: (message: string) => void
}

/** Native errors carry a code prefix (MODEL_PACK_INVALID: / DEVICE_UNAVAILABLE:); ONNX Runtime that cannot open, a native code. */
function nativeLoadError(modelId: string, cause: unknown): TtsError {
  if ((cause as { code?: unknown } | null)?.code === 'ERR_SVC_ONNX_LOAD') return fromNativeError(cause, `model pack for ${modelId}`)
  const message = cause instanceof Error ? cause.message : String(cause)
  const match = /^(MODEL_PACK_INVALID|DEVICE_UNAVAILABLE): ([\s\S]*)$/.exec(message)
  if (match?.[1] === 'DEVICE_UNAVAILABLE') return new TtsError('DEVICE_UNAVAILABLE', `model pack for ${modelId}: ${match[2]}`, { cause })
  return packError(modelId, match ? match[2]! : message, cause)
}

/** Where rewritten models are kept: $SVC_TTS_CACHE_DIR, else the XDG cache directory's svc-tts/lifted. */
function modelCacheDir(): string {
  if (process.env.SVC_TTS_CACHE_DIR) return path.resolve(process.env.SVC_TTS_CACHE_DIR)
  const base = process.env.XDG_CACHE_HOME && path.isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache')
  return path.join(base, 'svc-tts', 'lifted')
}

/**
 * The cache entry of a model file: its identity (device, inode, size, and the modification and
 * change times to the nanosecond) and what the load makes of it. Any write to the file moves its
 * change time, which no program can set back, and replacing it changes the inode: a changed file
 * gets a new entry. Hashing the content instead would add reading the file and its SHA-256 to
 * every load (22 + 34 ms for 33 MB in Node; bench/RESULTS.md, Model load); this costs one stat.
 */
function cacheKey(spec: NativeModelSpec): string {
  const s = statSync(spec.modelPath, { bigint: true })
  const variant = [spec.type, spec.liftConvolutions ?? true, spec.type === 'piper' ? (spec.windowedVocoder ?? true) : '']
  const identity = [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].map(String)
  return createHash('sha256').update(JSON.stringify([...variant, ...identity])).digest('hex').slice(0, 32)
}

export async function loadPack(native: NativeAddon, modelId: string, options: PackOptions, load: LoadOptions): Promise<LoadedPack> {
  const prepared = options.type === 'piper' ? preparePiper(modelId, options) : prepareKokoro(modelId, options)
  const cache = (options.cache ?? true) ? { cacheDir: modelCacheDir(), cacheKey: cacheKey(prepared.spec) } : {}
  let loaded: { model: NativeModel; info: NativeModelInfo }
  try {
    loaded = await native.loadModel({ ...prepared.spec, ...cache, device: load.device, threads: load.threads })
  } catch (cause) {
    throw nativeLoadError(modelId, cause)
  }
  const { model, info } = loaded
  if (info.fallbackReason) load.warn(`svc-tts: ${modelId} runs on the CPU: ${info.fallbackReason}`)
  if (info.cacheWhy) load.warn(`svc-tts: ${modelId} loaded, but its rewritten model could not be cached (the next load makes it again): ${info.cacheWhy}`)
  return {
    modelId,
    type: options.type,
    name: prepared.name,
    path: prepared.spec.modelPath,
    model,
    info,
    languages: prepared.languages,
    speakers: prepared.speakers(info),
  }
}
