import { TtsError } from '../errors.js'
import { PREDEFINED_VOICES } from './predefined.js'
import type { ListVoicesOptions, StoredVoice, VoicePage, VoiceStore } from './types.js'

export const DEFAULT_LIST_LIMIT = 20
export const MAX_LIST_LIMIT = 100

/** The predefined voices, held in memory in a fixed order. */
export class PredefinedVoiceStore implements VoiceStore {
  private readonly byId = new Map(PREDEFINED_VOICES.map((v) => [v.record.voice_id, v]))

  async list({ limit = DEFAULT_LIST_LIMIT, cursor }: ListVoicesOptions = {}): Promise<VoicePage> {
    const all = PREDEFINED_VOICES
    const after = cursor === undefined ? -1 : all.findIndex((v) => v.record.voice_id === cursor)
    if (cursor !== undefined && after < 0) throw new TtsError('INVALID_REQUEST', `cursor '${cursor}' is not a voice id of this list`)
    const start = after + 1
    const page = all.slice(start, start + limit)
    const more = start + page.length < all.length
    return { voices: page.map((v) => v.record), next_cursor: more ? page[page.length - 1]!.record.voice_id : null }
  }

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    return this.byId.get(voiceId)
  }
}
