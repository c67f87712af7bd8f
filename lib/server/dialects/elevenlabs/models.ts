/**
 * ElevenLabs' model ids onto svc-tts's, through a table the dialect's `models` option extends or
 * overrides; svc-tts's own ids (and those of neural packs) pass through as they are.
 */
import type { Engine } from '../../../engine/engine.js'
import type { ModelEntry } from '../../../engine/models.js'

/** Multilingual models map to the 15-language espeak-ng model, the fast ones to the streaming one, English v1 to flite. */
export const DEFAULT_MODEL_MAP: Readonly<Record<string, string>> = {
  eleven_multilingual_v2: 'svc_flash_v1.0',
  eleven_multilingual_v1: 'svc_flash_v1.0',
  eleven_v3: 'svc_flash_v1.0',
  eleven_flash_v2_5: 'svc_flash_v1.5',
  eleven_turbo_v2_5: 'svc_flash_v1.5',
  eleven_flash_v2: 'svc_flash_v1.5',
  eleven_turbo_v2: 'svc_flash_v1.5',
  eleven_monolingual_v1: 'svc_pro_v1.0',
}

/** What a request's model_id is spoken by: ElevenLabs' default model when it names none. */
export const DEFAULT_MODEL_ID = 'eleven_multilingual_v2'

export type ModelMap = Readonly<Record<string, string>>

export function svcModelId(models: ModelMap, modelId: string | null | undefined): string {
  const id = modelId ?? DEFAULT_MODEL_ID
  return Object.hasOwn(models, id) ? models[id]! : id
}

let languageNames: Intl.DisplayNames | undefined  // made on first use: a startup snapshot cannot keep ICU state

function modelRecord(modelId: string, model: ModelEntry, mappedFrom?: string) {
  return {
    model_id: modelId,
    name: mappedFrom ? `${modelId} (served by ${model.id})` : model.id,
    description: model.description,
    can_do_text_to_speech: true,
    can_do_voice_conversion: false,
    can_be_finetuned: false,
    can_use_style: false,
    can_use_speaker_boost: false,
    serves_pro_voices: false,
    token_cost_factor: 1,
    requires_alpha_access: false,
    languages: model.languages.map((language) => ({ language_id: language, name: (languageNames ??= new Intl.DisplayNames(['en'], { type: 'language' })).of(language) ?? language })),
  }
}

/** GET /v1/models: every ElevenLabs id of the table whose svc-tts model exists, then the engine's own models. */
export function listModels(engine: Engine<string>, models: ModelMap): unknown[] {
  const served = new Map(engine.models.list().map((m) => [m.id, m]))
  const mapped = Object.entries(models).flatMap(([id, target]) => {
    const model = served.get(target)
    return model && !served.has(id) ? [modelRecord(id, model, target)] : []
  })
  return [...mapped, ...[...served.values()].map((m) => modelRecord(m.id, m))]
}
