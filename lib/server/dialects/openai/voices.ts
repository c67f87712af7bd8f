/**
 * OpenAI's `voice` as an svc-tts voice id: an OpenAI name through the table, then a voice id or a
 * voice name (any case) of the engine's library, cloned voices included. The library does every
 * lookup; this only decides the order.
 */
import type { Engine } from '../../../engine/engine.js'
import { isTtsError, TtsError } from '../../../errors.js'
import { parseWith } from '../../../validation/parse.js'
import { listVoicesSchema } from '../../../voices/schemas.js'
import type { VoiceRecord } from '../../../voices/types.js'

/** The library's largest page. Checked once here, so a request's lookups add no parse of their own. */
const FIRST_PAGE = parseWith(listVoicesSchema, { limit: 100 }, 'voice list options')

/** The library's voices in its order (predefined, cloned, packs'), page by page, until `enough` of them. */
export async function* libraryVoices(engine: Engine<string>, enough = Infinity): AsyncGenerator<VoiceRecord> {
  let page = await engine.voices.list(FIRST_PAGE)
  let given = 0
  for (;;) {
    for (const voice of page.voices) {
      if (given++ >= enough) return
      yield voice
    }
    if (page.next_cursor === null) return
    page = await engine.voices.list({ limit: 100, cursor: page.next_cursor })
  }
}

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
