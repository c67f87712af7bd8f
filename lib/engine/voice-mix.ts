/**
 * A request's mix of a Kokoro pack's voices, as the addon takes it: `style:weight,...`, whose style
 * is the weighted mean of those styles (the pack's configured blends are the same thing, named).
 * A mix names voices of the one pack behind its model; Piper and the builtin engines cannot mix.
 */
import { TtsError } from '../errors.js'
import type { LoadedPack } from '../neural/packs.js'
import { packVoiceId } from '../neural/voices.js'
import type { ModelEntry } from './models.js'

/**
 * The addon keeps each distinct mix's style (522 kB) for the pack's life: a pack takes this many
 * distinct mixes, so what clients send cannot grow the process without bound.
 */
export const MAX_DISTINCT_MIXES = 64

const mixesOf = new WeakMap<LoadedPack, Set<string>>()

function refuse(message: string): TtsError {
  return new TtsError('INVALID_REQUEST', message)
}

/** What the addon takes as the voice of a mix; the first voice's record gives the mix its language and gender. */
export function resolveMix(model: ModelEntry, voices: readonly { id: string; weight: number }[]): { spec: string } {
  const pack = model.pack
  if (!pack) throw refuse(`voice.mode 'mix' needs a Kokoro pack: ${model.id} speaks with the builtin ${model.backend} engine, which cannot mix voices`)
  if (pack.type !== 'kokoro') throw refuse(`voice.mode 'mix' needs a Kokoro pack: ${model.id} is a Piper pack, which cannot mix voices`)
  const speakers = new Map(pack.speakers.map((speaker) => [packVoiceId(pack, speaker.name), speaker]))
  const parts: string[] = []
  for (const [index, { id, weight }] of voices.entries()) {
    const speaker = speakers.get(id)
    if (!speaker) {
      throw refuse(`voice.voices.${index}.id '${id}' is not a voice of the ${pack.name} pack behind ${model.id}: a mix takes voices of that one pack`)
    }
    // A configured blend is itself a mix: its parts, scaled to the weight it is given here.
    const blend = speaker.voice.split(',').map((part) => part.split(':') as [string, string?])
    const total = blend.reduce((sum, [, w]) => sum + Number(w ?? 1), 0)
    for (const [style, w] of blend) parts.push(`${style}:${blend.length === 1 ? weight : (weight * Number(w ?? 1)) / total}`)
  }
  const spec = parts.join(',')
  const configured = pack.speakers.some((speaker) => speaker.voice === spec)
  const seen = mixesOf.get(pack) ?? new Set<string>()
  mixesOf.set(pack, seen)
  if (!configured && !seen.has(spec)) {
    if (seen.size >= MAX_DISTINCT_MIXES) {
      throw refuse(`the ${pack.name} pack has made ${MAX_DISTINCT_MIXES} distinct mixes, its limit: reuse one, or configure the mix as a blend of the pack`)
    }
    seen.add(spec)
  }
  return { spec }
}
