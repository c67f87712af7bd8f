import type { Language } from '../text/types.js'
import type { StoredVoice } from './types.js'

/** Previews use the model that speaks every language. */
export const PREVIEW_MODEL_ID = 'svc_flash_v1.0'

const PREVIEW_TEXT: Record<Language, string> = {
  en: 'Hello! This is how I sound.',
  es: '¡Hola! Así es como sueno.',
  fr: 'Bonjour ! Voici ma voix.',
  de: 'Hallo! So klingt meine Stimme.',
  it: 'Ciao! Questa è la mia voce.',
  pt: 'Olá! Esta é a minha voz.',
  ar: 'مرحبا! هذا هو صوتي.',
  ru: 'Привет! Вот так звучит мой голос.',
  ro: 'Bună! Așa sună vocea mea.',
  ja: 'こんにちは。これが私の声です。',
  he: 'שלום! כך נשמע הקול שלי.',
  hy: 'Բարև։ Այսպես է հնչում իմ ձայնը։',
  tr: 'Merhaba! Sesim böyle.',
  hi: 'नमस्ते! मेरी आवाज़ ऐसी है।',
  zh: '你好！这是我的声音。',
}

export function previewText(language: Language): string {
  return PREVIEW_TEXT[language]
}

const MAX_CACHED_PREVIEWS = 64

/**
 * Previews already rendered, keyed by voice and its last update, so a changed voice is rendered
 * again. Least recently used ones go first.
 */
export class PreviewCache {
  private readonly entries = new Map<string, { updatedAt: string; wav: Promise<Buffer> }>()

  async get(voice: StoredVoice, render: () => Promise<Buffer>): Promise<Buffer> {
    const id = voice.record.voice_id
    const cached = this.entries.get(id)
    this.entries.delete(id)
    if (cached && cached.updatedAt === voice.record.updated_at) {
      this.entries.set(id, cached)
      return cached.wav
    }
    const wav = render()
    this.entries.set(id, { updatedAt: voice.record.updated_at, wav })
    wav.catch(() => {
      if (this.entries.get(id)?.wav === wav) this.entries.delete(id)  // a failed render is not kept
    })
    if (this.entries.size > MAX_CACHED_PREVIEWS) this.entries.delete(this.entries.keys().next().value!)
    return wav
  }

  forget(voiceId: string): void {
    this.entries.delete(voiceId)
  }
}
