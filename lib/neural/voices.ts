/**
 * The voices of the loaded packs: listed after the library's voices, with ids derived from the
 * pack and speaker names (UUIDv5, stable across releases and machines). A library voice speaking
 * on a pack is read by the pack's closest voice: same language, same gender where both are known.
 */
import { TtsError } from '../errors.js'
import type { Language } from '../text/types.js'
import { uuidFromName } from '../voices/ids.js'
import { DEFAULT_LIST_LIMIT } from '../voices/paging.js'
import type { ListVoicesOptions, NewVoice, StoredVoice, VoicePage, VoicePatch, VoiceQuota, VoiceRecord, VoiceSample, VoiceStore, VoiceUsage } from '../voices/types.js'
import type { LoadedPack, PackSpeaker } from './packs.js'

/** When pack voices first appear: their records never change while the pack's names do not. */
const PACK_VOICES_CREATED_AT = '2026-11-23T00:00:00.000Z'

interface PackVoice {
  stored: StoredVoice
  pack: LoadedPack
  speaker: PackSpeaker
}

export function packVoiceId(pack: Pick<LoadedPack, 'type' | 'name'>, speaker: string): string {
  return uuidFromName(`svc-tts/pack/${pack.type}/${pack.name}/${speaker}`)
}

/** The packs' voices, read-only, in pack order. */
export class PackVoiceStore {
  private readonly voices: PackVoice[] = []
  private readonly byId = new Map<string, PackVoice>()

  constructor(packs: readonly LoadedPack[]) {
    for (const pack of packs) {
      for (const speaker of pack.speakers) {
        const id = packVoiceId(pack, speaker.name)
        if (this.byId.has(id)) continue  // one pack behind two model ids lists its voices once
        const voice: PackVoice = {
          pack,
          speaker,
          stored: {
            record: {
              voice_id: id,
              voice_type: 'PREDEFINED',
              name: `${speaker.name} (${pack.name})`,
              description: `${pack.type === 'piper' ? 'Piper' : 'Kokoro'} voice of the ${pack.name} pack, served as ${pack.modelId}.`,
              created_at: PACK_VOICES_CREATED_AT,
              updated_at: PACK_VOICES_CREATED_AT,
              language: speaker.language,
              gender: speaker.gender,
            },
            // On a builtin model, a pack voice speaks with espeak-ng's variant of its gender.
            rendering: { espeakVariant: speaker.gender === 'Male' ? '+m3' : '+f3', speed: 1, pitch: 1 },
          },
        }
        this.voices.push(voice)
        this.byId.set(id, voice)
      }
    }
  }

  get size(): number {
    return this.voices.length
  }

  async list({ limit = DEFAULT_LIST_LIMIT, cursor }: ListVoicesOptions = {}): Promise<VoicePage> {
    const after = cursor === undefined ? -1 : this.voices.findIndex((v) => v.stored.record.voice_id === cursor)
    if (cursor !== undefined && after < 0) throw new TtsError('INVALID_REQUEST', `cursor '${cursor}' is not a voice id of this list`)
    const page = this.voices.slice(after + 1, after + 1 + limit)
    const more = after + 1 + page.length < this.voices.length
    return { voices: page.map((v) => v.stored.record), next_cursor: more ? page[page.length - 1]!.stored.record.voice_id : null }
  }

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    return this.byId.get(voiceId)?.stored
  }

  /** The speaker of `pack` that reads `voice` in `language`: its own, or the closest. */
  speakerFor(pack: LoadedPack, voice: StoredVoice, language: Language): PackSpeaker {
    const own = this.byId.get(voice.record.voice_id)
    if (own && own.pack.name === pack.name && own.pack.type === pack.type && own.speaker.language === language) return own.speaker
    const sameLanguage = pack.speakers.filter((s) => s.language === language)
    const sameGender = sameLanguage.find((s) => s.gender !== 'Unknown' && s.gender === voice.record.gender)
    const closest = sameGender ?? sameLanguage[0]
    if (!closest) throw new TtsError('INVALID_LANGUAGE', `the ${pack.name} pack of ${pack.modelId} has no voice for '${language}'`)
    return closest
  }
}

/**
 * The library's voices, then the packs' voices, as one store. Listing pages through the library
 * first; a cursor into the packs' part starts with "pack:". Pack voices are read-only.
 */
export class CombinedVoiceStore implements VoiceStore {
  constructor(
    private readonly library: VoiceStore,
    private readonly packs: PackVoiceStore,
  ) {}

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    return (await this.library.get(voiceId)) ?? this.packs.get(voiceId)
  }

  async getMany(voiceIds: readonly string[]): Promise<StoredVoice[]> {
    const found = new Map((await this.library.getMany(voiceIds)).map((v) => [v.record.voice_id, v]))
    const out: StoredVoice[] = []
    for (const id of voiceIds) {
      const voice = found.get(id) ?? (await this.packs.get(id))
      if (voice) out.push(voice)
    }
    return out
  }

  async list(options: ListVoicesOptions = {}): Promise<VoicePage> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT
    if (options.cursor?.startsWith(PACK_CURSOR)) {
      const after = options.cursor.slice(PACK_CURSOR.length)
      return this.fromPacks(limit, after === '' ? undefined : after, [])
    }
    const first = await this.library.list(options)
    if (first.next_cursor !== null || this.packs.size === 0) return first
    if (first.voices.length >= limit) return { voices: first.voices, next_cursor: PACK_CURSOR }
    return this.fromPacks(limit - first.voices.length, undefined, first.voices)
  }

  create(voice: NewVoice, quota?: VoiceQuota): Promise<StoredVoice> {
    return this.library.create(voice, quota)
  }

  async usage(owner: string): Promise<VoiceUsage> {
    return (await this.library.usage?.(owner)) ?? { voices: 0, sampleBytes: 0 }
  }

  async update(voiceId: string, patch: VoicePatch): Promise<StoredVoice | undefined> {
    await this.refusePackVoice(voiceId)
    return this.library.update(voiceId, patch)
  }

  async delete(voiceId: string): Promise<boolean> {
    await this.refusePackVoice(voiceId)
    return this.library.delete(voiceId)
  }

  sample(voiceId: string): Promise<VoiceSample | undefined> {
    return this.library.sample(voiceId)
  }

  close(): Promise<void> {
    return this.library.close()
  }

  private async fromPacks(limit: number, cursor: string | undefined, before: VoiceRecord[]): Promise<VoicePage> {
    const page = await this.packs.list({ limit, ...(cursor !== undefined && { cursor }) })
    return { voices: [...before, ...page.voices], next_cursor: page.next_cursor === null ? null : PACK_CURSOR + page.next_cursor }
  }

  private async refusePackVoice(voiceId: string): Promise<void> {
    const voice = await this.packs.get(voiceId)
    if (voice) throw new TtsError('VOICE_READ_ONLY', `voice '${voice.record.name}' belongs to a model pack: it cannot be changed or deleted`)
  }
}

const PACK_CURSOR = 'pack:'
