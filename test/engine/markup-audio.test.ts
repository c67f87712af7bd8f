/**
 * The text layer heard through the engine: breaks as exact silence, digits as words, phoneme
 * overrides and Chinese/Japanese readings as espeak-ng actually pronounces them.
 */
import { describe, expect, it } from 'vitest'
import { loadNative } from '../../lib/native.js'
import { planSpeech } from '../../lib/text/index.js'
import type { Language } from '../../lib/text/types.js'
import { ESPEAK_LANGUAGE_VOICE } from '../../lib/engine/models.js'
import { decodeWav, rms, s16, zeroRuns } from '../helpers/audio.js'
import { firstVoiceOf, testEngine, voiceId } from '../helpers/engine.js'

const native = loadNative()

/** What espeak-ng says for the planned transcript: the IPA of every text and phoneme piece, in order. */
async function spokenIpa(transcript: string, language: Language): Promise<string> {
  const plan = await planSpeech(transcript, { language, backend: 'espeak' })
  const parts: string[] = []
  for (const chunk of plan.chunks) {
    for (const piece of chunk.pieces) {
      if (piece.kind === 'break') continue
      const voice = piece.espeakVoice ?? ESPEAK_LANGUAGE_VOICE[language]
      parts.push(await native.phonemize(piece.kind === 'text' ? piece.text : `[[${piece.phonemes}]]`, voice, true))
    }
  }
  return parts.join(' ')
}

const bare = (ipa: string) => ipa.replace(/[ˈˌ\s,.\-]/g, '')

describe('markup in the audio', async () => {
  const engine = await testEngine()

  for (const [model, voice] of [['svc_flash_v1.5', 'Sarah'], ['svc_pro_v1.0', 'Richard']] as const) {
    for (const rate of [8000, 44100] as const) {
      it(`${model} at ${rate} Hz: a 500 ms break is 500 ms of digital silence where it was asked for`, async () => {
        const { audio_base64, alignment } = await engine.synthesizeWithTimestamps({
          model_id: model,
          transcript: "One two three.<break time='500ms'/>Four five six.",
          voice: { mode: 'id', id: voiceId(voice) },
          output_format: { container: 'wav', sample_rate: rate },
        })
        const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
        const runs = zeroRuns(samples, Math.round(rate * 0.45))
        expect(runs.length).toBe(1)
        const [start, end] = runs[0]!
        expect(Math.abs(end - start - rate / 2)).toBeLessThanOrEqual(1)
        const four = alignment.words.indexOf('Four')
        expect(alignment.word_end_times_milliseconds[four - 1]!).toBeLessThanOrEqual(Math.ceil((start / rate) * 1000) + 1)
        expect(alignment.word_start_times_milliseconds[four]!).toBeGreaterThanOrEqual(Math.floor((end / rate) * 1000) - 1)
      })
    }
  }

  it('consecutive breaks add up', async () => {
    const wav = await engine.synthesize({
      model_id: 'svc_flash_v1.5',
      transcript: "Wait <break time='300ms'/><break time=\"0.2s\"/> now.",
      voice: { mode: 'id', id: voiceId('Sarah') },
      output_format: { sample_rate: 16000 },
    })
    const runs = zeroRuns(s16(decodeWav(wav).data), 7000)
    expect(runs.map(([a, b]) => b - a)).toEqual([8000])
  })

  for (const model of ['svc_flash_v1.5', 'svc_pro_v1.0'] as const) {
    it(`${model}: <digits> gives one timed word per digit`, async () => {
      const { audio_base64, alignment } = await engine.synthesizeWithTimestamps({
        model_id: model,
        transcript: "Call <digits>4 1 5</digits><break time='200ms'/> now.",
        voice: { mode: 'id', id: voiceId('Sarah') },
        output_format: { container: 'wav', sample_rate: 16000 },
      })
      expect(alignment.words).toEqual(['Call', '4', '1', '5', 'now.'])
      const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
      for (const i of [1, 2, 3]) {
        const from = Math.floor(alignment.word_start_times_milliseconds[i]! * 16)
        const to = Math.ceil(alignment.word_end_times_milliseconds[i]! * 16)
        expect(to - from).toBeGreaterThan(16 * 80)  // a spoken digit, not a slot
        expect(rms(samples, from, to)).toBeGreaterThan(300)
      }
    })
  }

  it('"$3.50" is one word spanning its whole spoken expansion', async () => {
    const { alignment } = await engine.synthesizeWithTimestamps({
      model_id: 'svc_pro_v1.0',
      transcript: 'It costs $3.50 today.',
      voice: { mode: 'id', id: voiceId('Kal') },
    })
    expect(alignment.words).toEqual(['It', 'costs', '$3.50', 'today.'])
    const duration = (i: number) => alignment.word_end_times_milliseconds[i]! - alignment.word_start_times_milliseconds[i]!
    expect(duration(2)).toBeGreaterThan(3 * duration(0))  // "three dollars (and) fifty cents"
  })

  it('a phonemes override changes what espeak-ng says, in English and in French', async () => {
    const english = await spokenIpa('I say <phonemes>təˈmɑːtəʊ</phonemes>', 'en')
    const englishDefault = await spokenIpa('I say tomato', 'en')
    expect(englishDefault).toContain('eɪ')
    expect(english).toContain('ɑː')
    expect(english).not.toContain('meɪ')
    const french = await spokenIpa('Je vais à <phonemes>paʁis</phonemes>', 'fr')
    const frenchDefault = await spokenIpa('Je vais à Paris', 'fr')
    expect(bare(frenchDefault).endsWith('paʁi')).toBe(true)
    expect(bare(french).endsWith('paʁis')).toBe(true)
  })

  it('a phonemes override is a timed word in the audio (flite and espeak-ng)', async () => {
    for (const model of ['svc_pro_v1.0', 'svc_flash_v1.5'] as const) {
      const { alignment } = await engine.synthesizeWithTimestamps({
        model_id: model,
        transcript: 'I say <phonemes>təˈmɑːtəʊ</phonemes> every day.',
        voice: { mode: 'id', id: voiceId('Sarah') },
      })
      expect(alignment.words).toEqual(['I', 'say', 'təˈmɑːtəʊ', 'every', 'day.'])
      expect(alignment.word_end_times_milliseconds[2]! - alignment.word_start_times_milliseconds[2]!).toBeGreaterThan(250)
    }
  })

  // Each sentence in its usual script, and the reading espeak-ng must end up pronouncing.
  const readings: [Language, string, string][] = [
    ['zh', '我去银行取钱。', 'wo3 qu4 yin2 hang2 qu3 qian2'],
    ['zh', '他在重庆长大。', 'ta1 zai4 chong2 qing4 zhang3 da4'],
    ['zh', '这首音乐很快乐。', 'zhe4 shou3 yin1 yue4 hen3 kuai4 le4'],
    ['ja', '今日は天気がいいので公園に行きます。', 'キョー ワ テンキ ガ イイ ノデ コーエン ニ イキ マス'],
    ['ja', '私は学生です。', 'ワタシ ワ ガクセイ デス'],
  ]
  for (const [language, sentence, reading] of readings) {
    it(`${language}: "${sentence}" is pronounced as ${reading}`, async () => {
      const planned = bare(await spokenIpa(sentence, language))
      const expected = bare(await native.phonemize(reading, ESPEAK_LANGUAGE_VOICE[language], true))
      expect(planned).toBe(expected)
    })
  }

  it('Latin words inside Chinese are read as English words, not letter by letter', async () => {
    const { alignment } = await engine.synthesizeWithTimestamps({
      model_id: 'svc_flash_v1.0',
      transcript: '我用iPhone打电话。',
      voice: { mode: 'id', id: firstVoiceOf('zh') },
    })
    expect(alignment.words).toContain('iPhone')
    const ipa = await spokenIpa('我用iPhone打电话。', 'zh')
    expect(ipa).toContain('fˈəʊn')
  })
})
