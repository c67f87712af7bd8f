/** The engine's voice library walked page by page, for dialects whose listings are not paged as the SPEC's are. */
import type { Engine } from '../../engine/engine.js'
import { parseWith } from '../../validation/parse.js'
import { listVoicesSchema } from '../../voices/schemas.js'
import type { VoiceRecord } from '../../voices/types.js'

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

/** Every voice of the library. */
export async function allVoices(engine: Engine<string>): Promise<VoiceRecord[]> {
  const voices: VoiceRecord[] = []
  for await (const voice of libraryVoices(engine)) voices.push(voice)
  return voices
}
