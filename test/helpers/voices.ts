import type { NewVoice } from '../../lib/index.js'

/** A cloned voice's fields as a store keeps them, without going through sample analysis. */
export function newVoice(name: string, overrides: Partial<NewVoice> = {}): NewVoice {
  return {
    name,
    description: `test voice ${name}`,
    language: 'en',
    gender: 'Female',
    rendering: { espeakVariant: '+f3', flite: 'slt', speed: 1.1, pitch: 1.2 },
    analysis: { pitchHz: 210, pitchRangeSemitones: 4, formantScale: 1.1, syllablesPerSecond: 4, loudnessDb: -20, speechSeconds: 4 },
    sample: { audio: Buffer.from('RIFF-not-really'), mediaType: 'audio/wav' },
    ...overrides,
  }
}
