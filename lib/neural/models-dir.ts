/**
 * `--models-dir DIR` (`createEngine({ modelsDir })`): the packs pulled into DIR (`svc-tts models
 * pull`), each served under its own name, and DIR/svc-tts.models.json, optional once a pack is
 * pulled, mapping model ids to packs:
 *   { "device": "auto", "modelThreads": 1,
 *     "models": { "svc_pro_v1.0": { "pack": "en_US-lessac-medium", "genders": { "default": "Male" } },
 *                 "my_voice": { "type": "piper", "path": "voices/my-voice.onnx" } } }
 * Paths are relative to DIR. A pulled pack a model id names is served under that id only.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { deviceSchema, packOptionsSchema, type Device, type PackOptions } from './options.js'
import { listInstalledModels, type InstalledModel } from './store/installed.js'
import { packPath } from './store/manifest.js'

export const MODELS_FILE = 'svc-tts.models.json'

/** A pulled pack by name, with the options its manifest cannot give (Piper's genders, Kokoro's blends). */
const pulledPackSchema = z.strictObject({
  pack: z.string().min(1),
  genders: z.record(z.string(), z.enum(['Male', 'Female'])).optional(),
  blends: z.record(z.string(), z.record(z.string(), z.number().positive())).optional(),
  windowedVocoder: z.boolean().optional(),
  liftConvolutions: z.boolean().optional(),
})

const modelsFileSchema = z.object({
  device: deviceSchema.optional(),
  modelThreads: z.number().int().min(1).max(64).optional(),
  models: z.record(z.string().min(1), z.union([pulledPackSchema, packOptionsSchema])).default({}),
})

export interface ModelsDirOptions {
  models: Record<string, PackOptions>
  device?: Device
  modelThreads?: number
}

function invalid(file: string, message: string, cause?: unknown): TtsError {
  return new TtsError('MODEL_PACK_INVALID', `${file}: ${message}`, cause === undefined ? {} : { cause })
}

function readModelsFile(file: string): z.infer<typeof modelsFileSchema> {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (cause) {
    throw new TtsError('MODEL_PACK_INVALID', `${file} is not valid JSON`, { cause })
  }
  const parsed = modelsFileSchema.safeParse(json)
  if (!parsed.success) throw invalid(file, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
  return parsed.data
}

/** The options that load a pulled pack. */
export function pulledPackOptions(installed: InstalledModel, extra: Omit<z.infer<typeof pulledPackSchema>, 'pack'> = {}): PackOptions {
  return { ...extra, type: installed.manifest.type, path: packPath(installed.directory, installed.manifest) } as PackOptions
}

/** The engine options a models directory describes; MODEL_PACK_INVALID when it holds neither a pulled pack nor a valid models file. */
export function readModelsDir(directory: string): ModelsDirOptions {
  const root = path.resolve(directory)
  const file = path.join(root, MODELS_FILE)
  const installed = listInstalledModels(root)
  if (!existsSync(file) && installed.length === 0) throw new TtsError('MODEL_PACK_INVALID', `${file} does not exist and no pack is pulled into ${root}`)
  const config = existsSync(file) ? readModelsFile(file) : { models: {} }
  const named = new Set<string>()
  const models: Record<string, PackOptions> = {}
  for (const [id, entry] of Object.entries(config.models)) {
    if ('pack' in entry) {
      const { pack, ...extra } = entry
      const found = installed.find((model) => model.name === pack)
      if (!found) throw invalid(file, `models.${id} names the pack '${pack}', which is not pulled into ${root} (svc-tts models pull ${pack})`)
      const options = packOptionsSchema.safeParse(pulledPackOptions(found, extra))
      if (!options.success) throw invalid(file, `models.${id}: ${options.error.issues.map((i) => `${i.path.join('.') || i.message}: ${i.message}`).join('; ')}`)
      models[id] = options.data
      named.add(pack)
    } else {
      const resolved = { ...entry, path: path.resolve(root, entry.path) }
      if (resolved.type === 'piper' && resolved.config) resolved.config = path.resolve(root, resolved.config)
      models[id] = resolved
    }
  }
  for (const model of installed) {
    if (!named.has(model.name) && !(model.name in models)) models[model.name] = pulledPackOptions(model)
  }
  return {
    models,
    ...(config.device && { device: config.device }),
    ...(config.modelThreads && { modelThreads: config.modelThreads }),
  }
}
