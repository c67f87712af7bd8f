/**
 * The addon links several copies of espeak-ng, each with a state of its own (CMakeLists.txt:
 * SVC_TTS_ESPEAK_COPIES), and uses one per pool thread: texts on different copies run side by
 * side, and every text still gives the bytes it gives alone, whichever copy speaks it.
 */
import { describe, expect, it } from 'vitest'
import { createEngine, LANGUAGES, PREDEFINED_VOICES, type SynthesisRequest } from '../../lib/index.js'
import { PARK_SENTENCES } from '../helpers/sentences.js'

const THREADS = 4  // this process's pool, so four copies even on a 2-core machine

describe('espeak-ng copies', async () => {
  const engine = await createEngine({ threads: THREADS })
  // Two voices of each language (one where there is one), each with two texts: the sentence, and
  // its first clause with another's second.
  const voices = LANGUAGES.flatMap((language) => PREDEFINED_VOICES.filter((voice) => voice.record.language === language).slice(0, 2))
  const requests: SynthesisRequest[] = voices.flatMap((voice, i) => {
    const language = voice.record.language
    const other = LANGUAGES[(LANGUAGES.indexOf(language) + 1) % LANGUAGES.length]!
    const mixed = `${PARK_SENTENCES[language].split(/[,،，、]/)[0]}. ${PARK_SENTENCES[other]}`
    return [PARK_SENTENCES[language], mixed].map((transcript) => ({
      model_id: 'svc_flash_v1.0',
      transcript,
      voice: { mode: 'id', id: voice.record.voice_id },
      // Rates and pitches of their own, so that a copy's parameters from the text before show.
      speed: 0.9 + (i % 3) * 0.1,
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 },
    }))
  })

  it('uses one copy per pool thread', () => {
    expect(engine.counters().espeakInstances).toBe(THREADS)
  })

  it('many texts in every language at once, three times as many as there are copies and more, give exactly the bytes each gives alone, on copies that run side by side', async () => {
    expect(requests.length).toBeGreaterThan(3 * THREADS)
    const alone: Buffer[] = []
    for (const request of requests) alone.push(await engine.synthesize(request))
    // Every text three times, all at once, in an order other than the one above.
    const order = [...requests.keys(), ...requests.keys(), ...requests.keys()].reverse()
    const together = await Promise.all(order.map((i) => engine.synthesize(requests[i]!)))
    for (const [k, i] of order.entries()) {
      expect(together[k]!.length, requests[i]!.transcript).toBe(alone[i]!.length)
      expect(together[k]!.equals(alone[i]!), requests[i]!.transcript).toBe(true)
    }
    // More than one copy was synthesising at the same moment: the texts ran in parallel.
    const peak = engine.counters().espeakBusyPeak
    expect(peak).toBeGreaterThan(1)
    expect(peak).toBeLessThanOrEqual(THREADS)
  })
})
