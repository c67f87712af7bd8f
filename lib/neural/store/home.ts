/** Where pulled packs live unless told: SVC_TTS_MODELS_DIR, else the user's cache directory. */
import { homedir } from 'node:os'
import path from 'node:path'

export function defaultModelsDir(): string {
  if (process.env.SVC_TTS_MODELS_DIR) return path.resolve(process.env.SVC_TTS_MODELS_DIR)
  const cache = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache')
  return path.join(cache, 'svc-tts', 'models')
}

/** Work in progress (partial files, locks) sits in here, out of the way of the installed packs. */
export const PULLS_DIR = '.pulls'
