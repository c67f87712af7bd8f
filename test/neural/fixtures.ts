/** The neural fixture packs (scripts/make-neural-fixtures.py) and independent re-implementations of the id mappings. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Engine } from '../../lib/index.js'
import type { NativeModel, NativeTensor } from '../../lib/native.js'
import { KOKORO_VOCAB } from '../../lib/neural/kokoro-vocab.js'

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/neural')
export const PIPER = path.join(FIXTURES, 'en_US-fixture-medium.onnx')
export const PIPER_MULTI = path.join(FIXTURES, 'en_US-fixturemulti-medium.onnx')
export const KOKORO = path.join(FIXTURES, 'kokoro')
export const KOKORO_TIMESTAMPED = path.join(FIXTURES, 'kokoro-timestamped')
export const KOKORO_INT_SPEED = path.join(FIXTURES, 'kokoro-int-speed')

/** The pack behind `modelId` (an error where the id has none). */
export function packOf(engine: Engine<string>, modelId: string) {
  const model = engine.models.get(modelId)
  if (!model.pack) throw new Error(`${modelId} has no pack`)
  return model.pack
}

export function piperConfig(model: string): { phoneme_id_map: Record<string, number[]>; inference: Record<string, number> } {
  return JSON.parse(readFileSync(`${model}.json`, 'utf8'))
}

/** Piper's ids for a phoneme string (MODELS.md §1.4): ^ _ then every code point and a pad, then $. */
export function piperIds(phonemes: string, model: string): bigint[] {
  const map = piperConfig(model).phoneme_id_map
  const ids = [...map['^']!, ...map['_']!]
  for (const symbol of phonemes.normalize('NFD')) {
    if (!map[symbol]) continue
    ids.push(...map[symbol]!, ...map['_']!)
  }
  ids.push(...map['$']!)
  return ids.map(BigInt)
}

/** Kokoro's ids (kokoro-js): its espeak fixes, the vocabulary, 0 at both ends. */
export function kokoroIds(phonemes: string): bigint[] {
  const vocab = new Map(KOKORO_VOCAB)
  const fixed = phonemes.replace(/r/g, 'ɹ').replace(/x/g, 'k').replace(/ɬ/g, 'l').replace(/ʲ/g, 'j')
  const ids = [...fixed].flatMap((c) => (vocab.has(c) ? [vocab.get(c)!] : []))
  return [0, ...ids, 0].map(BigInt)
}

/** Row min(N, 509) of a kokoro-js voice file, N = tokens without the pads; or a weighted mix of several. */
export function styleRow(tokens: number, voices: Record<string, number>): Float32Array {
  const row = new Float32Array(256)
  const total = Object.values(voices).reduce((a, b) => a + b, 0)
  for (const [name, weight] of Object.entries(voices)) {
    const file = readFileSync(path.join(KOKORO, 'voices', `${name}.bin`))
    const all = new Float32Array(file.buffer, file.byteOffset, file.length / 4)
    const r = Math.min(tokens, all.length / 256 - 1)
    for (let i = 0; i < 256; i++) row[i] = row[i]! + weight * all[r * 256 + i]!
  }
  for (let i = 0; i < 256; i++) row[i] = row[i]! / total
  return row
}

export function int64(name: string, values: bigint[], shape = [1, values.length]): NativeTensor {
  return { name, type: 'int64', shape, data: BigInt64Array.from(values) }
}

export function float32(name: string, values: number[] | Float32Array, shape: number[]): NativeTensor {
  return { name, type: 'float32', shape, data: Float32Array.from(values) }
}

export async function rawRun(model: NativeModel, inputs: NativeTensor[], outputs: string[]): Promise<Float32Array[]> {
  const results = await model.run(inputs, outputs)
  return results.map((r) => r.data as Float32Array)
}

export function f32(pcm: Buffer): Float32Array {
  const copy = Buffer.from(pcm)
  return new Float32Array(copy.buffer, copy.byteOffset, copy.length / 4)
}

export function maxAbsDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity
  let worst = 0
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!))
  return worst
}

/** What the native backend interface hands on: 16-bit samples (x * 32767 rounded half away from zero), read back as s / 32768. */
export function as16Bit(samples: Float32Array): Float32Array {
  return samples.map((x) => {
    const scaled = Math.max(-1, Math.min(1, x)) * 32767
    return (Math.sign(scaled) * Math.round(Math.abs(scaled))) / 32768
  })
}
