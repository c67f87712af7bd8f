/**
 * The engine's voices as Wyoming names them: each library voice (predefined and cloned) by its
 * name, each model pack as one voice named after the pack whose speakers are its voices (as
 * wyoming-piper lists a multi-speaker Piper model). A name picks the voice; a language code picks
 * that language's first voice, as wyoming-piper's language aliases do.
 */
import { SAMPLE_RATES, type SampleRate } from '../../audio/format.js'
import type { Engine } from '../../engine/engine.js'
import type { ModelEntry } from '../../engine/models.js'
import { TtsError } from '../../errors.js'
import type { LoadedPack, PackSpeaker } from '../../neural/packs.js'
import { packVoiceId } from '../../neural/voices.js'
import { LANGUAGES, type Language } from '../../text/types.js'
import type { VoiceRecord } from '../../voices/types.js'
import { allVoices } from '../dialects/library-voices.js'
import type { SynthesizeVoice } from './events.js'
import { PACKAGE_VERSION } from '../../package-root.js'

/** The rates the builtin backends synthesise at: audio is sent at them, never resampled. */
const BUILTIN_RATES = { flite: 16000, espeak: 22050 } as const

/** What a Wyoming voice speaks with: an engine voice on a model, at the model's own rate. */
export interface Speaking {
  voiceId: string
  modelId: string
  language: Language
  sampleRate: SampleRate
}

export interface Attribution {
  name: string
  url: string
}

/** A voice as `info` lists it (wyoming's TtsVoice). */
export interface VoiceInfo {
  name: string
  attribution: Attribution
  installed: true
  description: string
  version: string | null
  languages: Language[]
  speakers: { name: string }[] | null
}

interface CatalogVoice {
  info: VoiceInfo
  speaking: Speaking
  /** A pack's speakers by name, in order (the first speaks when none is asked). */
  speakers?: Map<string, Speaking>
  /** Engine voice ids that also name this voice. */
  ids: string[]
}

const ATTRIBUTION = {
  espeak: { name: 'eSpeak NG', url: 'https://github.com/espeak-ng/espeak-ng' },
  flite: { name: 'CMU Flite', url: 'http://cmuflite.org' },
  piper: { name: 'rhasspy', url: 'https://github.com/rhasspy/piper' },
  kokoro: { name: 'hexgrad', url: 'https://huggingface.co/hexgrad/Kokoro-82M' },
  clone: { name: 'svc-tts voice clone', url: '' },
} as const satisfies Record<string, Attribution>

/** The pack's rate where the engine outputs it, else the next one up (a voice trained at 11025 Hz is sent at 16000). */
function packRate(pack: LoadedPack): SampleRate {
  return SAMPLE_RATES.find((rate) => rate >= pack.info.sampleRate) ?? 48000
}

function rateOf(model: ModelEntry): SampleRate {
  return model.pack ? packRate(model.pack) : BUILTIN_RATES[model.backend as keyof typeof BUILTIN_RATES]
}

/** `en`, `en_US`, `en-us` all as `en`; undefined where svc-tts does not speak it. */
export function languageOf(code: string): Language | undefined {
  const primary = code.split(/[-_]/)[0]!.toLowerCase()
  return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : undefined
}

/** A library voice speaks on the first builtin model of its language: its own rendering, not a pack's nearest voice. */
function modelFor(models: readonly ModelEntry[], language: Language): ModelEntry | undefined {
  return models.find((m) => !m.pack && m.languages.includes(language)) ?? models.find((m) => m.languages.includes(language))
}

function libraryVoice(record: VoiceRecord, model: ModelEntry, name: string): CatalogVoice {
  const backend = model.pack?.type ?? (model.backend as 'espeak' | 'flite')
  const cloned = record.voice_type === 'CUSTOM'
  return {
    info: {
      name,
      attribution: cloned ? ATTRIBUTION.clone : ATTRIBUTION[backend],
      installed: true,
      description: record.description ? `${record.name}: ${record.description}` : record.name,
      // Predefined voices ship with svc-tts; a clone is fitted by it.
      version: PACKAGE_VERSION,
      languages: [record.language],
      speakers: null,
    },
    speaking: { voiceId: record.voice_id, modelId: model.id, language: record.language, sampleRate: rateOf(model) },
    ids: [record.voice_id],
  }
}

function packVoice(pack: LoadedPack, model: ModelEntry, speakers: PackSpeaker[]): CatalogVoice {
  const bySpeaker = new Map(speakers.map((speaker) => [
    speaker.name,
    { voiceId: packVoiceId(pack, speaker.name), modelId: model.id, language: speaker.language, sampleRate: rateOf(model) },
  ]))
  const languages = [...new Set(speakers.map((s) => s.language))]
  return {
    info: {
      name: pack.name,
      attribution: ATTRIBUTION[pack.type],
      installed: true,
      description: `${pack.name} (${pack.type === 'piper' ? 'Piper' : 'Kokoro'}, ${languages.join(', ')})`,
      // A pack's files carry no version of their own.
      version: null,
      languages,
      speakers: speakers.length > 1 ? speakers.map((s) => ({ name: s.name })) : null,
    },
    speaking: bySpeaker.values().next().value!,
    ...(speakers.length > 1 && { speakers: bySpeaker }),
    ids: [...bySpeaker.values()].map((s) => s.voiceId),
  }
}

/** The voices of an engine at one moment (voices are cloned and deleted while a server runs). */
export class WyomingVoices {
  private constructor(private readonly voices: readonly CatalogVoice[]) {}

  static async of(engine: Engine<string>): Promise<WyomingVoices> {
    const models = engine.models.list()
    const packSpeakers = new Map<string, { pack: LoadedPack; model: ModelEntry; speakers: PackSpeaker[] }>()
    const packIds = new Set<string>()
    for (const model of models) {
      const pack = model.pack
      if (!pack || packSpeakers.has(`${pack.type}/${pack.name}`)) continue  // one pack behind two model ids is one voice
      packSpeakers.set(`${pack.type}/${pack.name}`, { pack, model, speakers: pack.speakers })
      for (const speaker of pack.speakers) packIds.add(packVoiceId(pack, speaker.name))
    }
    const records = (await allVoices(engine)).filter((record) => !packIds.has(record.voice_id))
    const counts = new Map<string, number>()
    for (const record of records) counts.set(record.name, (counts.get(record.name) ?? 0) + 1)
    const voices: CatalogVoice[] = []
    for (const record of records) {
      const model = modelFor(models, record.language)
      // A name two voices share names neither: each goes by its id.
      if (model) voices.push(libraryVoice(record, model, counts.get(record.name) === 1 ? record.name : record.voice_id))
    }
    for (const { pack, model, speakers } of packSpeakers.values()) if (speakers.length > 0) voices.push(packVoice(pack, model, speakers))
    return new WyomingVoices(voices)
  }

  /** Every voice, as `info` lists them. */
  list(): VoiceInfo[] {
    return this.voices.map((voice) => voice.info)
  }

  /**
   * The voice a `synthesize` asks for: by name (or engine voice id, or a language code), else by
   * language, else `fallback` (a name) or the first voice. VOICE_NOT_FOUND names what was asked.
   */
  find(asked: SynthesizeVoice | null | undefined, fallback?: string): Speaking {
    if (asked?.name) return this.named(asked.name, asked.speaker ?? undefined)
    if (asked?.language) {
      const voice = this.ofLanguage(asked.language)
      if (!voice) throw new TtsError('INVALID_LANGUAGE', `no voice speaks language '${asked.language}' (describe lists each voice's languages)`)
      return voice.speaking
    }
    if (fallback !== undefined) return this.named(fallback, undefined)
    const first = this.voices[0]
    if (!first) throw new TtsError('VOICE_NOT_FOUND', 'the engine has no voices')
    return first.speaking
  }

  private named(name: string, speaker: string | undefined): Speaking {
    const lower = name.toLowerCase()
    const voice = this.voices.find((v) => v.info.name === name)
      ?? this.voices.find((v) => v.info.name.toLowerCase() === lower || v.ids.includes(lower))
      ?? (languageOf(name) && this.ofLanguage(name))
    const shown = name.length > 64 ? `${name.slice(0, 64)}...` : name
    if (!voice) throw new TtsError('VOICE_NOT_FOUND', `voice '${shown}' is not a voice of this server (describe lists them)`)
    if (speaker === undefined) return voice.speaking
    // A speaker by name, or by its number as wyoming-piper takes it.
    const all = [...(voice.speakers?.values() ?? [])]
    const chosen = voice.speakers?.get(speaker) ?? (/^\d+$/.test(speaker) ? all[Number(speaker)] : undefined)
    if (!chosen) {
      const speakers = voice.info.speakers ? `: ${voice.info.speakers.map((s) => s.name).join(', ')}` : ' (it has one)'
      throw new TtsError('VOICE_NOT_FOUND', `voice '${shown}' has no speaker '${speaker.slice(0, 64)}'${speakers}`)
    }
    return chosen
  }

  private ofLanguage(code: string): CatalogVoice | undefined {
    const language = languageOf(code)
    return language && this.voices.find((v) => v.info.languages.includes(language))
  }
}
