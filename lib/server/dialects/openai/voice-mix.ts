/**
 * Kokoro-FastAPI's mix string in OpenAI's `voice`: `af_bella(2)+af_sky(1)`, each part a voice with
 * an optional weight (default 1). A part is a speaker name of the model's pack (`af_bella`), else
 * any voice OpenAI's `voice` may name. A string with neither `+` nor a trailing `(weight)` is one voice.
 */
import type { Engine } from '../../../engine/engine.js'
import type { VoiceSelector } from '../../../engine/requests.js'
import { packVoiceId } from '../../../neural/voices.js'
import { resolveVoice } from './voices.js'

const WEIGHT = /^\d+(?:\.\d+)?$/

/** `name(2)` as its name and weight; undefined for a part without a trailing weight. */
function weighted(part: string): { name: string; weight: number } | undefined {
  const open = part.lastIndexOf('(')
  if (open <= 0 || !part.endsWith(')')) return undefined
  const weight = part.slice(open + 1, -1).trim()
  return WEIGHT.test(weight) ? { name: part.slice(0, open).trim(), weight: Number(weight) } : undefined
}

function isMix(voice: string): boolean {
  return voice.includes('+') || weighted(voice.trim()) !== undefined
}

export async function voiceSelectorOf(engine: Engine<string>, voice: string | { id: string }, modelId: string, table: ReadonlyMap<string, string>): Promise<VoiceSelector> {
  if (typeof voice !== 'string' || !isMix(voice)) return { mode: 'id', id: await resolveVoice(engine, voice, table) }
  const pack = engine.models.get(modelId).pack
  const voices = []
  for (const part of voice.split('+')) {
    const parsed = weighted(part.trim())
    const name = parsed?.name ?? part.trim()
    const speaker = pack?.speakers.find((s) => s.name === name)
    const id = pack && speaker ? packVoiceId(pack, speaker.name) : await resolveVoice(engine, name, table)
    voices.push({ id, weight: parsed?.weight ?? 1 })
  }
  return { mode: 'mix', voices }
}
