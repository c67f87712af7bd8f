import { TtsError } from '../errors.js'
import type { LoadedPack } from '../neural/packs.js'
import { LANGUAGES, type Language, type PlanBackend } from '../text/types.js'

/** A model id of the engine (the SPEC's three, and those of neural packs), mapped to what speaks it and the languages it has. */
export interface ModelEntry {
  id: string
  backend: PlanBackend
  languages: readonly Language[]
  description: string
  /** backend 'neural': the Piper or Kokoro pack loaded for this id. */
  pack?: LoadedPack
}

/** The default registry with some model ids served by neural packs instead (other ids keep their builtin backend). */
export function modelsWithPacks(packs: readonly LoadedPack[]): ModelEntry[] {
  const byId = new Map<string, ModelEntry>(DEFAULT_MODELS.map((m) => [m.id, m]))
  for (const pack of packs) {
    byId.set(pack.modelId, {
      id: pack.modelId,
      backend: 'neural',
      languages: pack.languages,
      description: `${pack.type === 'piper' ? 'Piper' : 'Kokoro'} pack ${pack.name} on ${pack.info.device} (${pack.languages.join(', ')}).`,
      pack,
    })
  }
  return [...byId.values()]
}

/** The SPEC's model ids and the builtin backends that speak them. */
export const DEFAULT_MODELS = [
  { id: 'svc_pro_v1.0', backend: 'flite', languages: ['en'], description: 'Highest quality. English (flite voices).' },
  {
    id: 'svc_flash_v1.5',
    backend: 'espeak',
    languages: ['en', 'es', 'fr', 'de', 'it', 'pt'],
    description: 'Fast streaming. 6 languages (espeak-ng).',
  },
  { id: 'svc_flash_v1.0', backend: 'espeak', languages: LANGUAGES, description: 'Legacy. 15 languages (espeak-ng).' },
] as const satisfies readonly ModelEntry[]

/** A model id of the SPEC. An engine with neural packs also takes the ids its `models` option names. */
export type ModelId = (typeof DEFAULT_MODELS)[number]['id']

export class ModelRegistry {
  private readonly byId: Map<string, ModelEntry>

  constructor(models: readonly ModelEntry[] = DEFAULT_MODELS) {
    this.byId = new Map(models.map((m) => [m.id, m]))
  }

  get(id: string): ModelEntry {
    const model = this.byId.get(id)
    if (!model) {
      throw new TtsError('MODEL_NOT_FOUND', `model_id '${id}' is not one of: ${[...this.byId.keys()].join(', ')}`)
    }
    return model
  }

  list(): ModelEntry[] {
    return [...this.byId.values()]
  }
}

/** The espeak-ng voice that reads each language (Mandarin is read from pinyin: its `cmn` voice is broken in 1.51). */
export const ESPEAK_LANGUAGE_VOICE: Record<Language, string> = {
  en: 'en-us', es: 'es', fr: 'fr', de: 'de', it: 'it', pt: 'pt', ar: 'ar', ru: 'ru', ro: 'ro',
  ja: 'ja', he: 'he', hy: 'hy', tr: 'tr', hi: 'hi', zh: 'cmn-latn-pinyin',
}
