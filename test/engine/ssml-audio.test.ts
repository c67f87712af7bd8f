/**
 * SSML heard through the engine: each element compared with what it stands for (an alias with
 * the alias spoken, say-as with the letters), prosody measured in the audio (duration, pitch,
 * loudness), voice and language switches against the other voice's own audio, marks and breaks
 * against the words' times, and malformed documents as 400s with their positions.
 */
import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { loadNative } from '../../lib/native.js'
import { decodeWav, rms, s16, zeroRuns } from '../helpers/audio.js'
import { collect, joinChunks, testEngine, voiceId } from '../helpers/engine.js'

const native = loadNative()
const RATE = 16000
const SARAH = { mode: 'id', id: voiceId('Sarah') } as const
const WAV = { container: 'wav', sample_rate: RATE } as const
const F32 = { container: 'raw', encoding: 'pcm_f32le', sample_rate: RATE } as const
const SENTENCE = 'The quick brown fox jumps over the lazy dog.'

const semitones = (a: number, b: number) => 12 * Math.log2(a / b)

/** Seconds from the first to the last sample above a floor: the speech, without the edges' silence. */
function speechSeconds(pcm: Buffer): number {
  const samples = new Float32Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length))
  let first = -1
  let last = -1
  samples.forEach((value, index) => {
    if (Math.abs(value) > 0.01) {
      if (first < 0) first = index
      last = index
    }
  })
  return (last - first) / RATE
}

describe('SSML in the audio', async () => {
  const engine = await testEngine()
  const wav = (transcript: string, voice = SARAH) => engine.synthesize({ model_id: 'svc_flash_v1.5', transcript, voice, output_format: WAV })
  const f32 = (transcript: string, voice = SARAH) => engine.synthesize({ model_id: 'svc_flash_v1.5', transcript, voice, output_format: F32 })
  const pitch = async (pcm: Buffer) => (await native.analysePcm(pcm, RATE)).pitchHz

  it('<sub alias> is the alias spoken, byte for byte, and the word keeps its written name', async () => {
    const ssml = '<speak>Visit the <sub alias="World Wide Web">WWW</sub> today.</speak>'
    expect((await wav(ssml)).equals(await wav('Visit the World Wide Web today.'))).toBe(true)
    const { alignment } = await engine.synthesizeWithTimestamps({ model_id: 'svc_flash_v1.5', transcript: ssml, voice: SARAH })
    expect(alignment.words).toEqual(['Visit', 'the', 'WWW', 'today.'])
  })

  it('<say-as interpret-as="characters"> is the letters spoken', async () => {
    expect((await wav('<speak>Code <say-as interpret-as="characters">abc</say-as>.</speak>')).equals(await wav('Code A B C.'))).toBe(true)
  })

  it('<say-as interpret-as="date" format="mdy"> reads the date as the language does', async () => {
    expect((await wav('<speak><say-as interpret-as="date" format="mdy">12/05/2023</say-as></speak>')).equals(await wav('2023-12-05'))).toBe(true)
  })

  it('<phoneme alphabet="ipa" ph> is the SPEC\'s <phonemes> tag', async () => {
    const ssml = '<speak>Say <phoneme alphabet="ipa" ph="təˈmɑːtəʊ">tomato</phoneme> now.</speak>'
    expect((await wav(ssml)).equals(await wav('Say <phonemes>təˈmɑːtəʊ</phonemes> now.'))).toBe(true)
  })

  it('<prosody rate="50%"> doubles the duration', async () => {
    const slow = speechSeconds(await f32(`<speak><prosody rate="50%">${SENTENCE}</prosody></speak>`))
    const normal = speechSeconds(await f32(SENTENCE))
    expect(slow / normal).toBeGreaterThan(1.8)
    expect(slow / normal).toBeLessThan(2.2)
  })

  it('<prosody pitch="+4st"> raises the median pitch by 3 to 5 semitones', async () => {
    const raised = semitones(await pitch(await f32(`<speak><prosody pitch="+4st">${SENTENCE}</prosody></speak>`)), await pitch(await f32(SENTENCE)))
    expect(raised).toBeGreaterThan(3)
    expect(raised).toBeLessThan(5)
  })

  it('<prosody volume="-6dB"> halves the amplitude', async () => {
    const quiet = rms(s16(decodeWav(await wav(`<speak><prosody volume="-6dB">${SENTENCE}</prosody></speak>`)).data))
    const normal = rms(s16(decodeWav(await wav(SENTENCE)).data))
    expect(quiet / normal).toBeGreaterThan(0.45)
    expect(quiet / normal).toBeLessThan(0.55)
  })

  it('<voice name> switches voice mid-text: that stretch is the other voice\'s own audio, at its pitch', async () => {
    const chunks = joinChunks(await collect(engine.speak({
      model_id: 'svc_flash_v1.5',
      transcript: `<speak>${SENTENCE} <voice name="Richard">${SENTENCE}</voice></speak>`,
      voice: SARAH,
      output_format: F32,
    })))
    expect(chunks).toHaveLength(2)
    const richard = await f32(SENTENCE, { mode: 'id', id: voiceId('Richard') })
    const sarah = await f32(SENTENCE)
    expect(chunks[0]!.audio.equals(sarah)).toBe(true)
    expect(chunks[1]!.audio.equals(richard)).toBe(true)
    expect(Math.abs(semitones(await pitch(chunks[1]!.audio), await pitch(richard)))).toBeLessThan(0.5)
    expect(semitones(await pitch(sarah), await pitch(richard))).toBeGreaterThan(3)
  })

  it('<voice name> of no voice is VOICE_NOT_FOUND before any audio', async () => {
    let chunks = 0
    const error = await (async () => {
      for await (const _ of engine.speak({ model_id: 'svc_flash_v1.5', transcript: '<speak>Hello <voice name="Nobody">there</voice></speak>', voice: SARAH })) chunks++
    })().catch((e: unknown) => e)
    expect((error as TtsError).code).toBe('VOICE_NOT_FOUND')
    expect(chunks).toBe(0)
  })

  it('<lang xml:lang> reads its text with the other language\'s voice', async () => {
    const chunks = joinChunks(await collect(engine.speak({
      model_id: 'svc_flash_v1.5',
      transcript: '<speak>Good morning. <lang xml:lang="fr-FR">Bonjour mon ami.</lang></speak>',
      voice: SARAH,
      output_format: F32,
    })))
    const french = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Bonjour mon ami.', language: 'fr', voice: SARAH, output_format: F32 })
    expect(chunks[chunks.length - 1]!.audio.equals(french)).toBe(true)
  })

  it('<lang> to a language the model does not speak is INVALID_LANGUAGE at the element', async () => {
    const transcript = '<speak>Hello <lang xml:lang="ja">konnichiwa</lang></speak>'
    const error = await wav(transcript).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TtsError)
    expect((error as TtsError).code).toBe('INVALID_LANGUAGE')
    expect((error as TtsError).extra?.offset).toBe(transcript.indexOf('<lang'))
  })

  it('<mark> is reported between the words around it, in the with-timestamps response and on a session', async () => {
    const transcript = '<speak>One two three <mark name="here"/> four five six.<mark name="end"/></speak>'
    const { alignment, marks, audio_base64 } = await engine.synthesizeWithTimestamps({ model_id: 'svc_flash_v1.5', transcript, voice: SARAH, output_format: WAV })
    const three = alignment.words.indexOf('three')
    const here = marks!.find((mark) => mark.name === 'here')!.time_seconds * 1000
    expect(here).toBeGreaterThanOrEqual(alignment.word_end_times_milliseconds[three]!)
    expect(here).toBeLessThanOrEqual(alignment.word_start_times_milliseconds[three + 1]!)
    const seconds = decodeWav(Buffer.from(audio_base64, 'base64')).data.length / 2 / RATE
    expect(marks!.map((mark) => mark.name)).toEqual(['here', 'end'])
    expect(Math.abs(marks![1]!.time_seconds - seconds)).toBeLessThan(0.002)
    const session = await engine.open({ model_id: 'svc_flash_v1.5', voice: SARAH, output_format: { sample_rate: RATE } })
    session.write(transcript)
    session.end()
    const sessionMarks = (await collect(session)).flatMap((chunk) => chunk.marks ?? [])
    expect(sessionMarks.map((mark) => mark.name)).toEqual(['here', 'end'])
    expect(Math.abs(sessionMarks[0]!.timeMs - here)).toBeLessThanOrEqual(1)
  })

  it('<break time> is that much digital silence, between the right words', async () => {
    const { audio_base64, alignment } = await engine.synthesizeWithTimestamps({
      model_id: 'svc_flash_v1.5',
      transcript: '<speak><s>One two three.</s><break time="500ms"/><s>Four five six.</s></speak>',
      voice: SARAH,
      output_format: WAV,
    })
    const samples = s16(decodeWav(Buffer.from(audio_base64, 'base64')).data)
    const runs = zeroRuns(samples, Math.round(RATE * 0.45))
    expect(runs).toHaveLength(1)
    const [start, end] = runs[0]!
    expect(Math.abs(end - start - RATE / 2)).toBeLessThanOrEqual(1)
    expect(alignment.word_start_times_milliseconds[alignment.words.indexOf('Four')]!).toBeGreaterThanOrEqual(Math.floor((end / RATE) * 1000) - 1)
  })

  it('the SPEC\'s own tags keep working outside <speak>', async () => {
    expect((await wav("One.<break time='300ms'/>Two.")).length).toBeGreaterThan(0)
  })

  for (const [transcript, offset, code] of [
    ['<speak>Hello <audio src="x.wav">there</audio></speak>', 13, 'INVALID_MARKUP'],
    ['<speak>Hello <s>there</speak>', 21, 'INVALID_MARKUP'],
    ['<speak>Hi <prosody rate="fastest">x</prosody></speak>', 10, 'INVALID_MARKUP'],
    ['<speak>Hi <phoneme alphabet="x-sampa" ph="t@">x</phoneme></speak>', 10, 'INVALID_PHONEMES'],
  ] as const) {
    it(`${transcript} is a 400 ${code} at offset ${offset}`, async () => {
      const error = await wav(transcript).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TtsError)
      expect((error as TtsError).code).toBe(code)
      expect((error as TtsError).status).toBe(400)
      expect((error as TtsError).extra?.offset).toBe(offset)
    })
  }
})
