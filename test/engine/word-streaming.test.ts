import { describe, it } from 'vitest'
import { PREDEFINED_VOICES, type ModelId, type SpeechChunk } from '../../lib/index.js'
import { collect, testEngine } from '../helpers/engine.js'
import { PARK_SENTENCES } from '../helpers/sentences.js'
import { expectWordsStreamWithAudio } from '../helpers/word-streaming.js'

const RATE = 24000
// Two long clauses, and a sum whose one word is several spoken words.
const ENGLISH = 'I would like to book a table for two people at seven tonight near the window if that is possible for you, ' +
  'and then we will see about the rest of the evening. It costs $3.50, or 12% less!'

describe('word timings reach the reader with the audio they time', async () => {
  const engine = await testEngine()
  const speak = async (model_id: ModelId, voice: string, transcript: string, speed: number): Promise<SpeechChunk[]> =>
    collect(engine.speak({ model_id, transcript, speed, voice: { mode: 'id', id: voice }, output_format: { encoding: 'pcm_s16le', sample_rate: RATE } }))

  for (const { record } of PREDEFINED_VOICES) {
    const models: ModelId[] = record.language === 'en' ? ['svc_flash_v1.0', 'svc_pro_v1.0'] : ['svc_flash_v1.0']
    it(`${record.name} (${record.language}): each word with or soon after its audio, never before`, async () => {
      const transcript = record.language === 'en' ? ENGLISH : `${PARK_SENTENCES[record.language]} ${PARK_SENTENCES[record.language]}`
      for (const model of models) {
        for (const speed of [0.5, 1]) {
          expectWordsStreamWithAudio(await speak(model, record.voice_id, transcript, speed), RATE, model === 'svc_pro_v1.0')
        }
      }
    })
  }
})
