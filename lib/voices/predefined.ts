import type { Language } from '../text/types.js'
import { uuidFromName } from './ids.js'
import type { StoredVoice } from './types.js'

/** When this set of voices was first published; predefined records never change after that. */
const PUBLISHED_AT = '2026-11-22T00:00:00.000Z'

interface VoiceSeed {
  name: string
  language: Language
  gender: 'Male' | 'Female'
  espeakVariant: string
  flite?: string
  description: string
}

const ENGLISH: VoiceSeed[] = [
  { name: 'Sarah', language: 'en', gender: 'Female', espeakVariant: '+f3', flite: 'slt', description: 'American English, clear and warm.' },
  { name: 'Richard', language: 'en', gender: 'Male', espeakVariant: '+m3', flite: 'rms', description: 'American English, low and steady.' },
  { name: 'Alan', language: 'en', gender: 'Male', espeakVariant: '+m1', flite: 'awb', description: 'Scottish English, bright.' },
  { name: 'Kal', language: 'en', gender: 'Male', espeakVariant: '+m2', flite: 'kal16', description: 'American English, fast diphone voice.' },
]

// Two voices a language (a female and a male espeak-ng variant), named for the language's speakers.
const OTHERS: [Language, string, string, string][] = [
  ['es', 'Spanish', 'Lucía', 'Mateo'],
  ['fr', 'French', 'Camille', 'Louis'],
  ['de', 'German', 'Anna', 'Lukas'],
  ['it', 'Italian', 'Giulia', 'Marco'],
  ['pt', 'Portuguese', 'Beatriz', 'João'],
  ['ar', 'Arabic', 'Layla', 'Omar'],
  ['ru', 'Russian', 'Olga', 'Ivan'],
  ['ro', 'Romanian', 'Ioana', 'Andrei'],
  ['ja', 'Japanese', 'Yuki', 'Haruto'],
  ['he', 'Hebrew', 'Noa', 'David'],
  ['hy', 'Armenian', 'Ani', 'Aram'],
  ['tr', 'Turkish', 'Elif', 'Emre'],
  ['hi', 'Hindi', 'Priya', 'Arjun'],
  ['zh', 'Mandarin Chinese', 'Mei', 'Wei'],
]

const SEEDS: VoiceSeed[] = [
  ...ENGLISH,
  ...OTHERS.flatMap(([language, languageName, female, male]): VoiceSeed[] => [
    { name: female, language, gender: 'Female', espeakVariant: '+f3', description: `${languageName}, female.` },
    { name: male, language, gender: 'Male', espeakVariant: '+m3', description: `${languageName}, male.` },
  ]),
]

export const PREDEFINED_VOICES: readonly StoredVoice[] = SEEDS.map((seed) => ({
  record: {
    voice_id: uuidFromName(`svc-tts/predefined/${seed.language}/${seed.name}`),
    voice_type: 'PREDEFINED',
    name: seed.name,
    description: seed.description,
    created_at: PUBLISHED_AT,
    updated_at: PUBLISHED_AT,
    language: seed.language,
    gender: seed.gender,
  },
  rendering: { espeakVariant: seed.espeakVariant, flite: seed.flite, speed: 1, pitch: 1 },
}))

/** The voice a language speaks with when the caller names none (CLI, previews). */
export function defaultVoiceFor(language: Language): StoredVoice {
  const voice = PREDEFINED_VOICES.find((v) => v.record.language === language)
  if (!voice) throw new Error(`no predefined voice for ${language}`)
  return voice
}
