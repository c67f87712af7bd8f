/**
 * The `speed` extension (0.5 to 2, default 1) on every backend: the decoded audio at speed 0.5 is
 * about twice as long as at speed 1, at speed 2 about half; the words stay the same and inside the
 * audio; a speed out of range is INVALID_REQUEST (400) in the library, over HTTP and on the WebSocket.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, SqliteVoiceStore, type Engine, type SynthesisRequest } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { decodeWav, rms, s16 } from '../helpers/audio.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'
import { KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'
import { newVoice } from '../helpers/voices.js'
import { KOKORO_INT_SPEED, KOKORO_TIMESTAMPED, PIPER } from '../neural/fixtures.js'

const run = promisify(execFile)
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
const WORDS = TEXT.split(' ')
const RATE = 16000

interface Spoken {
  seconds: number
  words: string[]
  starts: number[]
  ends: number[]
}

/** The request spoken as a WAV with its words: the WAV decoded, the words' times from the same call. */
async function speak(engine: Engine<string>, model_id: string, voice: string, speed?: number): Promise<Spoken> {
  const request: SynthesisRequest<string> = {
    model_id, transcript: TEXT, voice: { mode: 'id', id: voice }, output_format: { container: 'wav', sample_rate: RATE }, ...(speed !== undefined && { speed }),
  }
  const { audio_base64, alignment } = await engine.synthesizeWithTimestamps(request)
  const wav = decodeWav(Buffer.from(audio_base64, 'base64'))
  const samples = s16(wav.data)
  expect(rms(samples)).toBeGreaterThan(100)
  return {
    seconds: samples.length / wav.sampleRate,
    words: alignment.words,
    starts: alignment.word_start_times_milliseconds,
    ends: alignment.word_end_times_milliseconds,
  }
}

function expectWordsInside(spoken: Spoken): void {
  expect(spoken.words).toEqual(WORDS)
  spoken.starts.forEach((start, i) => {
    expect(start).toBeGreaterThanOrEqual(i === 0 ? 0 : spoken.starts[i - 1]!)
    expect(spoken.ends[i]!).toBeGreaterThanOrEqual(start)
    expect(spoken.ends[i]!).toBeLessThanOrEqual(Math.ceil(spoken.seconds * 1000))
  })
}

/** Speaks at 0.5, 1 and 2, checks the words at each speed, and returns the durations against speed 1. */
async function ratios(engine: Engine<string>, model: string, voice: string): Promise<{ slow: number; fast: number }> {
  const [slow, normal, fast] = [await speak(engine, model, voice, 0.5), await speak(engine, model, voice, 1), await speak(engine, model, voice, 2)]
  for (const spoken of [slow, normal, fast]) expectWordsInside(spoken)
  return { slow: slow.seconds / normal.seconds, fast: fast.seconds / normal.seconds }
}

/** "About double" and "about half": within 15 % (espeak-ng's pauses do not scale exactly with its rate). */
function expectAbout(ratio: number, expected: number): void {
  expect(ratio).toBeGreaterThan(expected * 0.85)
  expect(ratio).toBeLessThan(expected * 1.15)
}

let builtin: Engine
let neural: Engine<string>
let cloneId: string

beforeAll(async () => {
  builtin = await testEngine()
  neural = await createEngine({
    models: {
      'svc_pro_v1.0': { type: 'piper', path: PIPER },
      'svc_flash_v1.5': { type: 'kokoro', path: KOKORO_TIMESTAMPED },
      kokoro_int_speed: { type: 'kokoro', path: KOKORO_INT_SPEED },
    },
  })
  const sample = readFileSync(path.resolve(import.meta.dirname, '../fixtures/voices/speaker.mp3'))
  cloneId = (await builtin.voices.clone(sample, { name: 'Speed', language: 'en' })).voice_id
}, 120_000)
afterAll(() => neural.close())

describe('speed on every backend', () => {
  it('espeak-ng: half and twice the duration, the same words inside the audio', async () => {
    const { slow, fast } = await ratios(builtin, 'svc_flash_v1.5', voiceId('Sarah'))
    expectAbout(slow, 2)
    expectAbout(fast, 0.5)
  })

  it('flite: half and twice the duration, the same words inside the audio', async () => {
    const { slow, fast } = await ratios(builtin, 'svc_pro_v1.0', voiceId('Sarah'))
    expectAbout(slow, 2)
    expectAbout(fast, 0.5)
  })

  it('a Kokoro pack (fixture): half and twice the duration, the same words inside the audio', async () => {
    const { slow, fast } = await ratios(neural, 'svc_flash_v1.5', voiceId('Sarah'))
    expectAbout(slow, 2)
    expectAbout(fast, 0.5)
  })

  it('a Piper pack (fixture): twice the duration at 0.5; shorter at 2, as far as whole-frame durations allow', async () => {
    const { slow, fast } = await ratios(neural, 'svc_pro_v1.0', voiceId('Sarah'))
    expectAbout(slow, 2)
    // Piper rounds each phoneme's duration up to whole frames (at least one), so the fixture's
    // one-frame phonemes cannot get shorter: speed 2 gives about 0.65 of the duration here.
    expect(fast).toBeGreaterThan(0.4)
    expect(fast).toBeLessThan(0.75)
  })

  it('a cloned voice on espeak-ng and on flite: half and twice the duration on top of its fitted rate', async () => {
    for (const model of ['svc_flash_v1.0', 'svc_pro_v1.0']) {
      const { slow, fast } = await ratios(builtin, model, cloneId)
      expectAbout(slow, 2)
      expectAbout(fast, 0.5)
    }
  })

  it('espeak-ng below its slowest rate (80 words a minute): the audio is stretched the rest of the way, at the same pitch', async () => {
    // A voice whose own rate is 0.6: at speed 0.5 espeak-ng would read at 52 words a minute.
    const store = new SqliteVoiceStore(':memory:')
    const slowVoice = await store.create(newVoice('Slow', { rendering: { espeakVariant: '+f3', flite: 'slt', speed: 0.6, pitch: 1 } }))
    const engine = await createEngine({ voiceStore: store })
    try {
      const { slow, fast } = await ratios(engine, 'svc_flash_v1.5', slowVoice.record.voice_id)
      expectAbout(slow, 2)
      expectAbout(fast, 0.5)
      const pitch = async (speed: number) => {
        const audio = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: TEXT, voice: { mode: 'id', id: slowVoice.record.voice_id }, speed, output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: RATE } })
        return (await loadNative().analysePcm(audio, RATE)).pitchHz
      }
      expect(Math.abs(12 * Math.log2((await pitch(0.5)) / (await pitch(1))))).toBeLessThan(1)  // within a semitone
    } finally {
      await engine.close()
      await store.close()
    }
  })

  it('speed 1 is the default: the same audio as no speed at all (flite is reproducible)', async () => {
    const request: SynthesisRequest = { model_id: 'svc_pro_v1.0', transcript: TEXT, voice: { mode: 'id', id: voiceId('Kal') } }
    expect((await builtin.synthesize({ ...request, speed: 1 })).equals(await builtin.synthesize(request))).toBe(true)
  })

  it('a Kokoro export with an integer speed input takes whole speeds only', async () => {
    const normal = await speak(neural, 'kokoro_int_speed', voiceId('Sarah'))
    const fast = await speak(neural, 'kokoro_int_speed', voiceId('Sarah'), 2)
    expectAbout(fast.seconds / normal.seconds, 0.5)
    await expect(speak(neural, 'kokoro_int_speed', voiceId('Sarah'), 1.5)).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
  })
})

describe('a speed out of range', () => {
  const request = { model_id: 'svc_flash_v1.5', transcript: TEXT, voice: { mode: 'id', id: voiceId('Sarah') } } as const
  const bad = [3, 0.1, 0.49, 2.01, Number.NaN, '1.5', null]

  it('is INVALID_REQUEST (400) naming the field, from every call of the library', async () => {
    for (const speed of bad) {
      // As a JavaScript caller (or `as any`) sends it: the run-time check answers.
      const sent = { ...request, speed } as unknown as SynthesisRequest
      for (const call of [
        () => builtin.synthesize(sent),
        () => builtin.synthesizeWithTimestamps(sent),
        () => collect(builtin.stream(sent)),
        () => builtin.open(sent),
      ]) {
        const error = await call().then(() => undefined, (e: unknown) => e)
        expect(error, String(speed)).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
        expect((error as { extra: { issues: { path: string[] }[] } }).extra.issues[0]!.path).toEqual(['speed'])
      }
    }
  })
})

describe('speed over HTTP and the WebSocket', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine: builtin, keys: TEST_KEYS })
  })
  afterAll(() => server.close())
  const body = { model_id: 'svc_pro_v1.0', transcript: TEXT, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'wav', sample_rate: RATE } }
  const seconds = (wav: Buffer) => decodeWav(wav).data.length / 2 / RATE

  it('POST /text_to_speech honours it, and answers 400 INVALID_REQUEST for one out of range', async () => {
    const normal = seconds(Buffer.from(await (await post(server.base, '/text_to_speech', body)).arrayBuffer()))
    const fast = await post(server.base, '/text_to_speech', { ...body, speed: 2 })
    expect(fast.status).toBe(200)
    expectAbout(seconds(Buffer.from(await fast.arrayBuffer())) / normal, 0.5)
    for (const speed of [3, 0.1, '2']) {
      const refused = await post(server.base, '/text_to_speech/with_timestamps', { ...body, speed })
      expect(refused.status).toBe(400)
      const error = await refused.json()
      expect(error.error_code).toBe('INVALID_REQUEST')
      expect(error.extra.issues[0].path).toEqual(['speed'])
    }
  })

  it('the WebSocket takes it in initializeConnection and per context, and refuses one out of range', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    client.send({ model_id: 'svc_pro_v1.0', voice: { mode: 'id', id: voiceId('Sarah') }, speed: 0.1 })
    await client.until(() => client.events.length === 1)
    expect(client.events[0]).toMatchObject({ error_code: 'INVALID_REQUEST' })
    client.send({ model_id: 'svc_pro_v1.0', voice: { mode: 'id', id: voiceId('Sarah') }, speed: 2 })
    client.send({ context_id: 'fast', transcript: `${TEXT} ` })
    client.send({ context_id: 'fast', close_context: true, transcript: '' })
    // A live context given a speed starts again at that speed (its unfinished 'Hello' is dropped).
    client.send({ context_id: 'normal', transcript: 'Hello ' })
    client.send({ context_id: 'normal', transcript: `${TEXT} `, speed: 1 })
    client.send({ context_id: 'normal', close_context: true, transcript: '' })
    client.send({ context_id: 'bad', transcript: `${TEXT} `, speed: 3 })
    await client.until(() => client.finished('fast') && client.finished('normal') && client.events.some((e) => e.error_code === 'INVALID_REQUEST' && e !== client.events[0]))
    expectAbout(client.audio('fast').length / client.audio('normal').length, 0.5)
    client.socket.close()
  })
})

describe('speed on the command line', () => {
  const root = path.resolve(import.meta.dirname, '../..')
  const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], { cwd: root })

  it('svc-tts say --speed 2 speaks in about half the time; --speed 3 fails with INVALID_REQUEST', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-speed-cli-'))
    try {
      const seconds = async (...speed: string[]) => {
        const file = path.join(dir, `speech${speed.join('')}.wav`)
        await cli('say', TEXT, '--out', file, '--quiet', '--sample-rate', String(RATE), ...speed)
        return decodeWav(readFileSync(file)).data.length / 2 / RATE
      }
      expectAbout((await seconds('--speed', '2')) / (await seconds()), 0.5)
      const failed = await cli('say', TEXT, '--out', path.join(dir, 'x.wav'), '--speed', '3').then(() => undefined, (e: { code: number; stderr: string }) => e)
      expect(failed?.code).toBe(1)
      expect(failed?.stderr).toMatch(/^error INVALID_REQUEST: .*speed/m)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
