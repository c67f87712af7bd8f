// The ElevenLabs dialect over HTTP, driven by the official @elevenlabs/elevenlabs-js client against
// the real server: every route on the standalone server, the core ones on each adapter (standalone, Express, Fastify).
import { ElevenLabsError } from '@elevenlabs/elevenlabs-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ffmpegDecode } from '../../helpers/decode.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { ADAPTERS, start, TEST_KEYS, type Running } from '../../helpers/server.js'
import { client, readAll, readTimed } from './client.js'

const engine = await testEngine()
const SARAH = voiceId('Sarah')
const SENTENCE = 'The birch canoe slid on the smooth planks.'
const LONG = Array.from({ length: 12 }, (_, i) => `Sentence number ${i + 1} glides over the smooth planks of the dark blue canoe.`).join(' ')

/** The refusal a call raises, as the SDK raises it. */
async function refusal(call: Promise<unknown>): Promise<ElevenLabsError> {
  const error = await call.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(ElevenLabsError)
  return error as ElevenLabsError
}

function expectRefusal(error: ElevenLabsError, status: number, code: string): void {
  expect(error.statusCode).toBe(status)
  expect(error.body).toEqual({ detail: { status: code, message: expect.any(String) } })
}

/** Alignment checks: characters joined are the text, times in order and inside `seconds` of audio. */
function expectAlignment(alignment: { characters: string[]; characterStartTimesSeconds: number[]; characterEndTimesSeconds: number[] }, text: string, seconds: number): void {
  expect(alignment.characters.join('')).toBe(text)
  const { characterStartTimesSeconds: starts, characterEndTimesSeconds: ends } = alignment
  expect(starts).toHaveLength(alignment.characters.length)
  expect(ends).toHaveLength(alignment.characters.length)
  starts.forEach((start, i) => {
    expect(start).toBeGreaterThanOrEqual(i > 0 ? starts[i - 1]! : 0)
    expect(ends[i]!).toBeGreaterThanOrEqual(start)
    expect(ends[i]!).toBeLessThanOrEqual(seconds)
  })
  expect(ends.at(-1)!).toBeGreaterThan(seconds / 2)
}

const pcmSeconds = (pcm: Buffer, rate: number) => pcm.length / 2 / rate

describe.each(ADAPTERS)('ElevenLabs over HTTP on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('convert: an MP3 (the default format) of a plausible length', async () => {
    const mp3 = await readAll(await client(server.base).textToSpeech.convert(SARAH, { text: SENTENCE, modelId: 'eleven_multilingual_v2' }))
    const decoded = ffmpegDecode(mp3, 'mp3')
    expect(decoded.codec).toBe('mp3')
    expect(decoded.sampleRate).toBe(44100)
    const seconds = decoded.samples.length / decoded.sampleRate
    expect(seconds).toBeGreaterThan(1.2)
    expect(seconds).toBeLessThan(6)
  })

  it('stream: read while it streams, the same PCM as the one-shot call', async () => {
    const el = client(server.base)
    const since = performance.now()
    const parts = await readTimed(await el.textToSpeech.stream(SARAH, { text: LONG, modelId: 'eleven_flash_v2_5', outputFormat: 'pcm_22050' }), since)
    expect(parts.length).toBeGreaterThan(2)
    expect(parts[0]!.at).toBeLessThan(parts.at(-1)!.at)  // the first audio came before the last
    const streamed = await readAll(await el.textToSpeech.stream(SARAH, { text: LONG, modelId: 'eleven_flash_v2_5', outputFormat: 'pcm_22050' }))
    const whole = await readAll(await el.textToSpeech.convert(SARAH, { text: LONG, modelId: 'eleven_flash_v2_5', outputFormat: 'pcm_22050' }))
    expect(streamed.equals(whole)).toBe(true)
    expect(parts.reduce((n, p) => n + p.bytes, 0)).toBe(whole.length)
    expect(pcmSeconds(whole, 22050)).toBeGreaterThan(20)
  })

  it('convert-with-timestamps: each character inside the audio, in order, joined to the text', async () => {
    const text = 'Hello, world! It is 3 o\'clock.'
    const result = await client(server.base).textToSpeech.convertWithTimestamps(SARAH, { text, modelId: 'svc_pro_v1.0', outputFormat: 'pcm_16000' })
    const seconds = pcmSeconds(Buffer.from(result.audioBase64, 'base64'), 16000)
    expect(seconds).toBeGreaterThan(1)
    expectAlignment(result.alignment!, text, seconds)
    expect(result.normalizedAlignment!.characters.join('')).toMatch(/^Hello, world! It is 3 o'clock\.$/)
  })

  it('a bad key is the SDK\'s 401', async () => {
    expectRefusal(await refusal(client(server.base, 'sk_wrong_key_0123456789abcdef0123').textToSpeech.convert(SARAH, { text: SENTENCE })), 401, 'invalid_api_key')
  })
})

describe('ElevenLabs over HTTP: the rest of the routes (standalone)', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it('stream-with-timestamps: one JSON object a line, the audio the one-shot call gives, characters joined to the text', async () => {
    const el = client(server.base)
    const text = `${SENTENCE} <break time="300ms"/> A second sentence follows it.`
    const lines: { audioBase64: string; alignment?: { characters: string[]; characterStartTimesSeconds: number[]; characterEndTimesSeconds: number[] } }[] = []
    for await (const line of await el.textToSpeech.streamWithTimestamps(SARAH, { text, modelId: 'svc_flash_v1.5', outputFormat: 'pcm_24000' })) lines.push(line)
    expect(lines.length).toBeGreaterThan(1)
    const audio = Buffer.concat(lines.map((l) => Buffer.from(l.audioBase64, 'base64')))
    const whole = await readAll(await el.textToSpeech.convert(SARAH, { text, modelId: 'svc_flash_v1.5', outputFormat: 'pcm_24000' }))
    expect(audio.equals(whole)).toBe(true)
    const joined = {
      characters: lines.flatMap((l) => l.alignment!.characters),
      characterStartTimesSeconds: lines.flatMap((l) => l.alignment!.characterStartTimesSeconds),
      characterEndTimesSeconds: lines.flatMap((l) => l.alignment!.characterEndTimesSeconds),
    }
    expectAlignment(joined, text, pcmSeconds(whole, 24000))
  })

  it('with-timestamps keeps markup in the characters (as gaps) and leaves it out of the normalized alignment', async () => {
    const text = 'One <break time="1s"/> two.'
    const result = await client(server.base).textToSpeech.convertWithTimestamps(SARAH, { text, modelId: 'svc_flash_v1.5', outputFormat: 'pcm_16000' })
    const seconds = pcmSeconds(Buffer.from(result.audioBase64, 'base64'), 16000)
    expectAlignment(result.alignment!, text, seconds)
    expect(result.normalizedAlignment!.characters.join('')).not.toContain('<break')
    // The break's second lies between "One" and "two".
    const starts = result.alignment!.characterStartTimesSeconds
    expect(starts[text.indexOf('two')]! - result.alignment!.characterEndTimesSeconds[text.indexOf('One') + 2]!).toBeGreaterThan(0.9)
  })

  it.each([
    ['ulaw_8000', 8000, 1],
    ['alaw_8000', 8000, 1],
    ['pcm_44100', 44100, 2],
  ] as const)('%s: headerless audio of that rate', async (outputFormat, rate, bytesPerSample) => {
    const audio = await readAll(await client(server.base).textToSpeech.convert(SARAH, { text: SENTENCE, modelId: 'svc_flash_v1.5', outputFormat }))
    const seconds = audio.length / bytesPerSample / rate
    expect(seconds).toBeGreaterThan(1.2)
    expect(seconds).toBeLessThan(6)
  })

  it.each([
    ['opus_48000_64', 'ogg', 'opus', 48000],
    ['wav_16000', 'wav', 'pcm_s16le', 16000],
    ['mp3_22050_32', 'mp3', 'mp3', 22050],
  ] as const)('%s decodes as %s', async (outputFormat, extension, codec, rate) => {
    const file = await readAll(await client(server.base).textToSpeech.convert(SARAH, { text: SENTENCE, modelId: 'svc_flash_v1.5', outputFormat }))
    const decoded = ffmpegDecode(file, extension)
    expect(decoded.codec).toBe(codec)
    expect(decoded.sampleRate).toBe(rate)
    expect(decoded.samples.length / rate).toBeGreaterThan(1.2)
  })

  it('voice_settings.speed is the engine\'s speed; the other settings are accepted', async () => {
    const el = client(server.base)
    const at = async (speed: number) =>
      (await readAll(await el.textToSpeech.convert(SARAH, { text: SENTENCE, modelId: 'svc_flash_v1.5', outputFormat: 'pcm_16000', voiceSettings: { speed, stability: 0.3, similarityBoost: 0.9, style: 0.1, useSpeakerBoost: true } }))).length
    expect(await at(2)).toBeLessThan((await at(1)) * 0.75)
  })

  it('voices: listed, paged (v2) and got, in ElevenLabs\' shape', async () => {
    const el = client(server.base)
    const { voices } = await el.voices.getAll()
    const sarah = voices.find((v) => v.voiceId === SARAH)
    expect(sarah).toMatchObject({ name: 'Sarah', category: 'premade', labels: { language: 'en', gender: 'female' } })
    expect(voices.length).toBeGreaterThanOrEqual(30)
    expect(await el.voices.get(SARAH)).toMatchObject({ voiceId: SARAH, name: 'Sarah' })
    const first = await el.voices.search({ pageSize: 5 })
    expect(first.voices).toHaveLength(5)
    expect(first).toMatchObject({ hasMore: true, totalCount: voices.length })
    const second = await el.voices.search({ pageSize: 5, nextPageToken: first.nextPageToken! })
    expect(second.voices.map((v) => v.voiceId)).toEqual(voices.slice(5, 10).map((v) => v.voiceId))
  })

  it('models: ElevenLabs\' ids mapped onto svc-tts\'s, and svc-tts\'s own', async () => {
    const models = await client(server.base).models.list()
    const ids = models.map((m) => m.modelId)
    expect(ids).toEqual(expect.arrayContaining(['eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_v3', 'eleven_monolingual_v1', 'svc_pro_v1.0', 'svc_flash_v1.5', 'svc_flash_v1.0']))
    const flash = models.find((m) => m.modelId === 'eleven_flash_v2_5')!
    expect(flash.canDoTextToSpeech).toBe(true)
    expect(flash.languages!.map((l) => l.languageId)).toEqual(['en', 'es', 'fr', 'de', 'it', 'pt'])
    expect(flash.languages![0]!.name).toBe('English')
  })

  it('a famous premade voice id speaks with its mapped voice', async () => {
    const el = client(server.base)
    const mapped = await readAll(await el.textToSpeech.convert('21m00Tcm4TlvDq8ikWAM', { text: SENTENCE, modelId: 'svc_pro_v1.0', outputFormat: 'pcm_16000' }))
    const own = await readAll(await el.textToSpeech.convert(SARAH, { text: SENTENCE, modelId: 'svc_pro_v1.0', outputFormat: 'pcm_16000' }))
    expect(mapped.equals(own)).toBe(true)
  })

  it('refusals are ElevenLabs-shaped with the right status', async () => {
    const el = client(server.base)
    const convert = (voice: string, request: Parameters<typeof el.textToSpeech.convert>[1], query?: Record<string, string>) =>
      refusal(el.textToSpeech.convert(voice, request, query && { queryParams: query }).then(readAll))
    expectRefusal(await convert('00000000-0000-0000-0000-000000000000', { text: SENTENCE }), 404, 'voice_not_found')
    expectRefusal(await refusal(el.voices.get('no-such-voice')), 404, 'voice_not_found')
    expectRefusal(await convert(SARAH, { text: SENTENCE }, { output_format: 'mp3_44100_999' }), 400, 'invalid_output_format')
    expectRefusal(await convert(SARAH, { text: SENTENCE }, { output_format: 'pcm_32000' }), 400, 'invalid_output_format')
    expectRefusal(await convert(SARAH, { text: SENTENCE }, { output_format: 'flac_44100' }), 400, 'invalid_output_format')
    expectRefusal(await convert(SARAH, { text: SENTENCE, modelId: 'eleven_nonexistent' }), 400, 'model_not_found')
    expectRefusal(await convert(SARAH, { text: SENTENCE, voiceSettings: { speed: 3 } }), 400, 'invalid_request')
    expectRefusal(await convert(SARAH, { text: '' }), 400, 'invalid_request')
    expectRefusal(await convert(SARAH, { text: 'Hello <shout>there</shout>.' }), 400, 'invalid_markup')
    expectRefusal(await convert(SARAH, { text: SENTENCE, languageCode: 'xx' }), 400, 'unsupported_language')
    expectRefusal(await convert(SARAH, { text: SENTENCE, pronunciationDictionaryLocators: [{ pronunciationDictionaryId: 'abc', versionId: 'v1' }] }), 400, 'invalid_request')
    const missing = await refusal(client(server.base, '').voices.getAll())
    expect(missing.statusCode).toBe(401)
  })
})
