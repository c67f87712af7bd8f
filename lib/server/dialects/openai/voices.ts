/**
 * OpenAI's `voice` as an svc-tts voice id: an OpenAI name through the table, then a voice id or a
 * voice name (any case) of the engine's library, cloned voices included. The library does every
 * lookup; this only decides the order.
 */
import type { Engine } from '../../../engine/engine.js'
import { isTtsError, TtsError } from '../../../errors.js'
import { libraryVoices } from '../library-voices.js'

async function byId(engine: Engine<string>, id: string): Promise<string | undefined> {
  try {
    return (await engine.voices.get(id)).voice_id
  } catch (error) {
    if (isTtsError(error) && error.code === 'VOICE_NOT_FOUND') return undefined
    throw error
  }
}

async function byName(engine: Engine<string>, name: string): Promise<string | undefined> {
  const wanted = name.trim().toLowerCase()
  for await (const voice of libraryVoices(engine)) if (voice.name.toLowerCase() === wanted) return voice.voice_id
  return undefined
}

/** The voice id `voice` names; VOICE_NOT_FOUND (OpenAI's 400 on `voice`) when it names none. */
export async function resolveVoice(engine: Engine<string>, voice: string | { id: string }, table: ReadonlyMap<string, string>): Promise<string> {
  const asked = typeof voice === 'string' ? voice : voice.id
  const target = table.get(asked.toLowerCase()) ?? asked
  const id = (await byId(engine, target)) ?? (await byName(engine, target))
  if (id !== undefined) return id
  const shown = asked.length > 64 ? `${asked.slice(0, 64)}...` : asked
  const why = target === asked ? '' : ` (mapped to '${target}', which the voice library does not have)`
  throw new TtsError('VOICE_NOT_FOUND', `voice '${shown}'${why} is neither one of OpenAI's voices (${[...table.keys()].join(', ')}) nor an svc-tts voice id or name; GET /v1/audio/voices lists them`)
}
