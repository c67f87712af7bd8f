/**
 * The voice list of the stores that keep cloned voices in a table (SQLite, PostgreSQL): the
 * predefined voices first, in their order, then the cloned ones by their sequence number. A
 * cursor is the id of a page's last voice; a cloned voice's place outlives its deletion, so a
 * cursor stays valid.
 */
import { TtsError } from '../errors.js'
import { PREDEFINED_VOICES } from './predefined.js'
import type { Gender, ListVoicesOptions, StoredVoice, VoicePage } from './types.js'
import type { Language } from '../text/types.js'

export const DEFAULT_LIST_LIMIT = 20

/** What a store answers about its table of cloned voices. */
export interface ClonedVoiceTable<Seq> {
  /** The sequence number of the cloned voice `voiceId`, also once it is deleted; undefined if there never was one. */
  seqOf(voiceId: string): Promise<Seq | undefined>
  /** Up to `count` cloned voices after `after` (from the first when undefined), in list order, that pass the filters. */
  after(after: Seq | undefined, filters: { language: Language | undefined; gender: Gender | undefined }, count: number): Promise<StoredVoice[]>
}

/** One page; `cloned` is undefined for a store that holds no cloned voice yet. */
export async function listVoices<Seq>({ limit = DEFAULT_LIST_LIMIT, cursor, language, gender, voice_type }: ListVoicesOptions, cloned: ClonedVoiceTable<Seq> | undefined): Promise<VoicePage> {
  const after = cursor === undefined ? undefined : await positionOf(cursor, cloned)
  const picked: StoredVoice[] = []
  // One voice more than asked tells whether another page follows.
  const wanted = limit + 1
  if (voice_type !== 'CUSTOM' && (after === undefined || 'predefined' in after)) {
    const start = after === undefined ? 0 : after.predefined + 1
    for (let i = start; i < PREDEFINED_VOICES.length && picked.length < wanted; i++) {
      const voice = PREDEFINED_VOICES[i]!
      if (language !== undefined && voice.record.language !== language) continue
      if (gender !== undefined && voice.record.gender !== gender) continue
      picked.push(voice)
    }
  }
  if (voice_type !== 'PREDEFINED' && picked.length < wanted && cloned) {
    picked.push(...(await cloned.after(after !== undefined && 'seq' in after ? after.seq : undefined, { language, gender }, wanted - picked.length)))
  }
  const page = picked.slice(0, limit)
  // The SPEC's next_cursor is the id of the page's last voice.
  return { voices: page.map((voice) => voice.record), next_cursor: picked.length > limit ? page[page.length - 1]!.record.voice_id : null }
}

/** Where the voice a cursor names stands in the list. */
async function positionOf<Seq>(cursor: string, cloned: ClonedVoiceTable<Seq> | undefined): Promise<{ predefined: number } | { seq: Seq }> {
  const index = PREDEFINED_VOICES.findIndex((voice) => voice.record.voice_id === cursor)
  if (index >= 0) return { predefined: index }
  const seq = await cloned?.seqOf(cursor)
  if (seq === undefined) throw new TtsError('INVALID_REQUEST', `cursor '${cursor}' is not the id of a voice this list returned`)
  return { seq }
}
