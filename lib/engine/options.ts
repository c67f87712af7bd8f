/**
 * What createEngine takes: one schema, and the type inferred from it. An option the schema does not
 * know is INVALID_REQUEST naming it, as is a value out of its range.
 */
import * as z from 'zod'
import { deviceSchema, modelPacksSchema, type PackOptions } from '../neural/options.js'
import { strictObject } from '../validation/parse.js'
import { dictionaryLocatorsSchema } from '../voices/dictionaries/schemas.js'
import type { DictionaryStore } from '../voices/dictionaries/types.js'
import type { VoiceStore } from '../voices/types.js'

export const DEFAULT_MAX_TRANSCRIPT_CHARS = 100_000
/** Synthesis threads run this much nicer than the process: the event loop is never kept waiting behind them. */
export const DEFAULT_THREAD_NICE = 10

/** What speaking needs of a store; the voice operations a store lacks fail when called. */
const VOICE_STORE_METHODS = ['list', 'get'] as const

function isVoiceStore(value: unknown): value is VoiceStore {
  return typeof value === 'object' && value !== null && VOICE_STORE_METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
}

export const engineOptionsSchema = strictObject({
  /** Native synthesis threads (default: the CPUs the process may run on, 2 to 64), and as many espeak-ng copies synthesise at once (up to the 32 the addon holds). Fixed for the process by the first engine. */
  threads: z.number().int().min(1).max(64).optional(),
  /**
   * How much lower than the process's the synthesis threads' scheduling priority is: a nice
   * increment, 0 to 19 (default 10). On a busy CPU the event loop, at the process's priority,
   * still takes audio and I/O at once. Fixed for the process by the first engine, like `threads`.
   */
  threadNice: z.number().int().min(0).max(19).optional(),
  /** Chunks of one stream synthesized at once (default 2; a neural pack's streams: 1, each run on `modelThreads`). */
  queueCapacity: z.number().int().min(1).max(64).optional(),
  /** Seconds of audio a stream synthesizes ahead of its consumer before synthesis waits (default 5). */
  aheadSeconds: z.number().min(0).max(600).optional(),
  /** Longest transcript accepted, in UTF-16 characters (default 100 000). */
  maxTranscriptChars: z.number().int().min(1).optional(),
  /** Longest audio of one request in seconds, breaks included (default 1800): estimated before synthesis, enforced during it. */
  maxAudioSeconds: z.number().positive().max(86_400).optional(),
  /** espeak-ng data directory (default: the one shipped beside the addon, else the system's). */
  espeakDataPath: z.string().min(1).optional(),
  /** Where the voice library lives (`<dataDir>/voices.db`); without it cloned voices last as long as the engine. */
  dataDir: z.string().min(1).optional(),
  /** A voice library of your own instead of the SQLite one (the engine then does not close it). */
  voiceStore: z.custom<VoiceStore>(isVoiceStore, `voiceStore must be a VoiceStore (at least ${VOICE_STORE_METHODS.join(' and ')})`).optional(),
  /** Where pronunciation dictionaries live instead of the voice library's SQLite file (the engine then does not close it). */
  dictionaryStore: z.custom<DictionaryStore>((v) => typeof v === 'object' && v !== null && 'addVersion' in v && 'get' in v, 'dictionaryStore must be a DictionaryStore').optional(),
  /** Pronunciation dictionaries applied to every request that names none (`pronunciation_dictionaries: []` opts out). */
  pronunciationDictionaries: dictionaryLocatorsSchema.optional(),
  /** Model ids served by neural packs: `{ 'svc_pro_v1.0': { type: 'piper', path: '/voices/x.onnx' } }`. */
  models: modelPacksSchema.optional(),
  /**
   * A models directory (`svc-tts models pull`): its pulled packs, each under its own name, and the
   * model ids its svc-tts.models.json maps to packs. `models` given here win over its ids, and
   * `device` and `modelThreads` over its file's.
   */
  modelsDir: z.string().min(1).optional(),
  /** Where neural packs run: 'auto' (CUDA if it loads, else the CPU, with a warning), 'cpu' (default), 'cuda'. */
  device: deviceSchema.optional(),
  /** Intra-op threads of each neural session (default 1: concurrent requests run in parallel instead). */
  modelThreads: z.number().int().min(1).max(64).optional(),
  /** Where load-time warnings go (a device fallback); default process.emitWarning. */
  onWarning: z.custom<(message: string) => void>((v) => typeof v === 'function', 'onWarning must be a function').optional(),
})

/** `Packs`: the `models` option's packs, whose keys become model ids of the engine. */
export type EngineOptions<Packs extends Record<string, PackOptions> = Record<string, PackOptions>> = Omit<z.input<typeof engineOptionsSchema>, 'models'> & {
  models?: Packs
}
