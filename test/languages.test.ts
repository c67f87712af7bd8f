import { describe, expect, it } from 'vitest'
import { LANGUAGES, type Language, type SynthesisRequest } from '../lib/index.js'
import { decodeWav, rms, s16 } from './helpers/audio.js'
import { firstVoiceOf, testEngine } from './helpers/engine.js'

// "Today the weather is nice, so we are going to the park", in each language's usual script.
const SENTENCES: Record<Language, string> = {
  en: 'Today the weather is nice, so we are going to the park.',
  es: 'Hoy hace buen tiempo, así que vamos al parque.',
  fr: "Aujourd'hui il fait beau, alors nous allons au parc.",
  de: 'Heute ist schönes Wetter, also gehen wir in den Park.',
  it: 'Oggi fa bel tempo, quindi andiamo al parco.',
  pt: 'Hoje está um dia bonito, por isso vamos ao parque.',
  ar: 'الجو جميل اليوم لذلك سنذهب إلى الحديقة.',
  ru: 'Сегодня хорошая погода, поэтому мы идём в парк.',
  ro: 'Astăzi vremea este frumoasă, așa că mergem în parc.',
  ja: '今日は天気がいいので公園に行きます。',
  he: 'היום מזג האוויר יפה אז אנחנו הולכים לפארק.',
  hy: 'Այսօր եղանակը լավ է, ուստի մենք գնում ենք այգի։',
  tr: 'Bugün hava güzel, bu yüzden parka gidiyoruz.',
  hi: 'आज मौसम अच्छा है, इसलिए हम पार्क जा रहे हैं।',
  zh: '今天天气很好，我们去公园。',
}

describe('every language of svc_flash_v1.0 speaks with its default voice', async () => {
  const engine = await testEngine()
  for (const language of LANGUAGES) {
    it(`${language}: ${SENTENCES[language]}`, async () => {
      const request: SynthesisRequest = {
        model_id: 'svc_flash_v1.0',
        transcript: SENTENCES[language],
        voice: { mode: 'id', id: firstVoiceOf(language) },
        output_format: { container: 'wav', sample_rate: 22050 },
      }
      const { audio_base64, alignment } = await engine.synthesizeWithTimestamps(request)
      const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
      const seconds = samples.length / 22050
      // A spoken sentence: neither a blip nor the "Chinese letter" spelling-out of unread script.
      expect(seconds).toBeGreaterThan(1)
      expect(seconds).toBeLessThan(language === 'ja' || language === 'zh' ? 6 : 8)
      expect(rms(samples)).toBeGreaterThan(300)
      expect(alignment.words.length).toBeGreaterThan(0)
      const durationMs = seconds * 1000
      alignment.word_end_times_milliseconds.forEach((end) => expect(end).toBeLessThanOrEqual(Math.ceil(durationMs)))
    })
  }
})
