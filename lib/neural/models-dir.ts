/**
 * `--models-dir DIR`: a directory of packs described by one small file, DIR/svc-tts.models.json:
 *   { "device": "auto", "modelThreads": 1,
 *     "models": { "svc_pro_v1.0": { "type": "piper", "path": "en_US-lessac-medium.onnx" } } }
 * Pack paths are relative to DIR.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { TtsError } from '../errors.js'
import { deviceSchema, modelPacksSchema, type Device, type PackOptions } from './options.js'

export const MODELS_FILE = 'svc-tts.models.json'

const modelsFileSchema = z.object({
  device: deviceSchema.optional(),
  modelThreads: z.number().int().min(1).max(64).optional(),
  models: modelPacksSchema,
})

export interface ModelsDirOptions {
  models: Record<string, PackOptions>
  device?: Device
  modelThreads?: number
}

/** The engine options a models directory describes; MODEL_PACK_INVALID when its file is missing or wrong. */
export function readModelsDir(directory: string): ModelsDirOptions {
  const file = path.join(path.resolve(directory), MODELS_FILE)
  if (!existsSync(file)) throw new TtsError('MODEL_PACK_INVALID', `${file} does not exist`)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (cause) {
    throw new TtsError('MODEL_PACK_INVALID', `${file} is not valid JSON`, { cause })
  }
  const parsed = modelsFileSchema.safeParse(json)
  if (!parsed.success) {
    throw new TtsError('MODEL_PACK_INVALID', `${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  }
  const models = Object.fromEntries(
    Object.entries(parsed.data.models).map(([id, pack]) => {
      const resolved = { ...pack, path: path.resolve(path.dirname(file), pack.path) }
      if (resolved.type === 'piper' && resolved.config) resolved.config = path.resolve(path.dirname(file), resolved.config)
      return [id, resolved]
    }),
  )
  return {
    models,
    ...(parsed.data.device && { device: parsed.data.device }),
    ...(parsed.data.modelThreads && { modelThreads: parsed.data.modelThreads }),
  }
}
