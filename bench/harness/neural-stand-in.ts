/**
 * What bench/neural-packs.ts and its scenarios (bench/workers/neural-scenario.ts) share: the
 * stand-in for a Piper medium voice that scripts/make-bench-piper.py makes, the paragraph, the
 * figures a scenario reports, and sherpa-onnx-node where it is installed.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { THOUSAND_WORDS } from './texts.js'

export const MODEL = fileURLToPath(new URL('../.models/piper-medium-standin.onnx', import.meta.url))
/** The stand-in with its vocoder's first node renamed: a model the pack cannot cut, so it runs whole. */
export const UNCUT_MODEL = fileURLToPath(new URL('../.models/piper-medium-standin-uncut.onnx', import.meta.url))
/** What a scenario runs: BENCH_NEURAL_MODEL, else the stand-in. */
export const scenarioModel = () => process.env.BENCH_NEURAL_MODEL ?? MODEL

/**
 * Writes UNCUT_MODEL from MODEL: the node name the pack looks for (native/backends/neural/piper.h,
 * kVocoderBoundary) replaced by one of the same length, so the protobuf's lengths still hold.
 */
export function makeUncutModel(): void {
  const boundary = Buffer.from('/dec/conv_pre/Conv')
  const model = readFileSync(MODEL)
  const at = model.indexOf(boundary)
  if (at < 0 || model.indexOf(boundary, at + 1) >= 0) throw new Error('the stand-in names its vocoder boundary other than once')
  Buffer.from('/dec/conv_prX/Conv').copy(model, at)
  writeFileSync(UNCUT_MODEL, model)
  copyFileSync(`${MODEL}.json`, `${UNCUT_MODEL}.json`)
}
/** The first sentences of the long text up to about 100 words: a paragraph of about 40 s of speech. */
export const PARAGRAPH = THOUSAND_WORDS.split(/(?<=\.) /).reduce((text, sentence) => (text.split(' ').length >= 100 ? text : `${text} ${sentence}`.trim()), '')
/** The 20 sentences are timed this many times, through the engine and bare in turn: the median of each. */
export const RTF_PASSES = 5

export interface Measured {
  scenario: string
  firstAudioMs?: number[]
  wallMs?: number
  audioSeconds?: number
  /** Bare ORT on the model file as it is, and on the graph the pack runs (its convolutions lifted to 2-D). */
  bareMs?: number
  bareLiftedMs?: number
  worstLagMs?: number
  /** Scenario 'lengths': RSS after each pass over clauses of every length. */
  passRssMib?: number[]
  peakRssMib: number
  /** Whether the pack runs its vocoder on windows, and why not; the convolutions it runs as 2-D. */
  windowed?: boolean
  windowedWhy?: string
  lifted?: number
  /** RSS when the child started, before the engine (Node, tsx and the modules loaded). */
  startRssMib: number
  loadMs: number
}

export interface SherpaTts {
  generateAsync(request: { text: string; sid: number; speed: number; onProgress?: () => number }): Promise<{ samples: Float32Array; sampleRate: number }>
}

export function sherpaModule(): { OfflineTts: { createAsync(config: unknown): Promise<SherpaTts> } } | undefined {
  try {
    return createRequire(import.meta.url)(process.env.SHERPA_ONNX_NODE ?? 'sherpa-onnx-node')
  } catch {
    return undefined
  }
}
