/**
 * Cartesia's model ids as svc-tts models. Cartesia's current models speak many languages, so they
 * map to the engine's broadest model; `sonic-english` to its English-only flite model; the turbo
 * models to the faster espeak-ng model. The table is the dialect's `models` option (merged over
 * this default); an id it lacks goes to the engine as it is, so svc-tts's own ids work too.
 */
import { TtsError } from '../../../errors.js'

export const DEFAULT_MODELS: Readonly<Record<string, string>> = {
  'sonic-english': 'svc_pro_v1.0',
  'sonic-turbo': 'svc_flash_v1.5',
  'sonic-multilingual': 'svc_flash_v1.0',
  sonic: 'svc_flash_v1.0',
  'sonic-2': 'svc_flash_v1.0',
  'sonic-3': 'svc_flash_v1.0',
  'sonic-3.5': 'svc_flash_v1.0',
  'sonic-latest': 'svc_flash_v1.0',
}

/** A dated snapshot (`sonic-3-2025-10-27`) is its model. */
const SNAPSHOT_DATE = /-\d{4}-\d{2}-\d{2}$/

export type ModelTable = Readonly<Record<string, string>>

/** The svc-tts model a request's `model_id` names. A Cartesia id the table lacks is refused naming those it has. */
export function svcModel(table: ModelTable, modelId: string): string {
  const undated = modelId.replace(SNAPSHOT_DATE, '')
  for (const id of [modelId, undated]) if (Object.hasOwn(table, id)) return table[id]!
  if (/^sonic\b/.test(modelId)) {
    throw new TtsError('MODEL_NOT_FOUND', `model '${modelId}' is not served here; Cartesia models served: ${Object.keys(table).join(', ')} (and dated snapshots of them), or an svc-tts model id`)
  }
  return modelId
}
