// The Wyoming server against Home Assistant's sequences (its wyoming integration's tts.py, and the
// `wyoming` package it uses): describe; one synthesize per connection collected into a WAV;
// streaming text a word at a time; voices by name, clone and pack; errors; many clients at once; a
// client that leaves. Audio is checked against the engine's own synthesis of the same text.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wavHeader } from '../../lib/audio/format.js'
import { createEngine, packVoiceId, type Engine } from '../../lib/index.js'
import { createWyomingServer, type WyomingLog, type WyomingServer } from '../../lib/server/index.js'
import { decodeWav, rms, s16 } from '../helpers/audio.js'
import { collect, voiceId } from '../helpers/engine.js'
import { speech } from '../helpers/samples.js'
import { waitUntil } from '../helpers/wait.js'
import { audioSegments, frame, WyomingClient, type ClientEvent } from '../helpers/wyoming.js'
import { KOKORO, PIPER_MULTI } from '../neural/fixtures.js'

const SENTENCES = [
  'The birch canoe slid on the smooth planks. ',
  'Glue the sheet to the dark blue background. ',
  'It is easy to tell the depth of a well.',
]
const PARAGRAPH = SENTENCES.join('')

let engine: Engine<'piper_multi' | 'kokoro_pack'>
let server: WyomingServer
let port: number
const logs: WyomingLog[] = []
const clients: WyomingClient[] = []

/** The engine's own audio for `transcript`: raw 16-bit PCM at `rate`, in one piece. */
async function engineAudio(transcript: string, voice: string, model: 'svc_pro_v1.0' | 'svc_flash_v1.5' | 'piper_multi' | 'kokoro_pack', rate: 16000 | 22050 | 24000): Promise<Buffer> {
  const format = { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate } as const
  return Buffer.concat(await collect(engine.stream({ model_id: model, voice: { mode: 'id', id: voice }, transcript, output_format: format })))
}

async function connect(): Promise<WyomingClient> {
  const client = await WyomingClient.connect(port)
  clients.push(client)
  return client
}

/** Home Assistant's non-streaming call: one connection, one synthesize, audio until audio-stop. */
async function synthesize(data: Record<string, unknown>): Promise<ClientEvent[]> {
  const client = await connect()
  client.send('synthesize', data)
  const events = await client.until((e) => e.type === 'audio-stop' || e.type === 'error')
  client.close()
  return events
}

const nativeIdle = () => {
  const c = engine.counters()
  return c.activeTasks === 0 && c.queuedTasks === 0 && c.unreadAudioBytes === 0
}

beforeAll(async () => {
  engine = await createEngine({
    models: {
      piper_multi: { type: 'piper', path: PIPER_MULTI, genders: { bob: 'Male', alice: 'Female' } },
      kokoro_pack: { type: 'kokoro', path: KOKORO },
    },
  })
  server = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', log: (entry) => logs.push(entry) })
  port = Number(new URL(server.url.replace('tcp:', 'http:')).port)
})

afterAll(async () => {
  for (const client of clients) client.close()
  await server?.close()
  await engine?.close()
})

describe('Wyoming server', () => {
  it('answers describe with one TTS program listing every voice, streaming supported', async () => {
    const client = await connect()
    client.send('describe')
    const [info] = await client.until((e) => e.type === 'info')
    const programs = info!.data.tts as Record<string, unknown>[]
    expect(programs).toHaveLength(1)
    const program = programs[0]!
    expect(program).toMatchObject({ name: 'svc-tts', installed: true, supports_synthesize_streaming: true, attribution: { name: 'svc-tts' } })
    expect(program.version).toMatch(/^\d+\.\d+\.\d+/)
    const voices = program.voices as { name: string; languages: string[]; speakers: { name: string }[] | null; attribution: { name: string } }[]
    // The 32 predefined voices, then each pack as one voice with its speakers.
    expect(voices.slice(0, 4).map((v) => v.name)).toEqual(['Sarah', 'Richard', 'Alan', 'Kal'])
    expect(voices.find((v) => v.name === 'Sarah')).toMatchObject({ languages: ['en'], speakers: null, attribution: { name: 'CMU Flite' }, installed: true, version: program.version })
    expect(voices.find((v) => v.name === 'Mateo')).toMatchObject({ languages: ['es'], attribution: { name: 'eSpeak NG' } })
    expect(voices.find((v) => v.name === 'en_US-fixturemulti-medium')).toMatchObject({ languages: ['en'], speakers: [{ name: 'alice' }, { name: 'bob' }, { name: 'carol' }], attribution: { name: 'rhasspy' }, version: null })
    expect(new Set(voices.flatMap((v) => v.languages))).toEqual(new Set(['en', 'es', 'fr', 'de', 'it', 'pt', 'ar', 'ru', 'ro', 'ja', 'he', 'hy', 'tr', 'hi', 'zh']))
    expect(voices.find((v) => v.name === 'kokoro')).toMatchObject({ languages: ['en'], speakers: [{ name: 'af_heart' }, { name: 'am_michael' }], attribution: { name: 'hexgrad' } })
    expect(voices).toHaveLength(32 + 2)
    client.close()
  })

  it("synthesizes a sentence in one audio-start/stop at the voice's rate: Home Assistant's WAV holds the engine's speech", async () => {
    const text = SENTENCES[0]!.trim()
    const events = await synthesize({ text, voice: { name: 'Sarah' } })
    expect(events.map((e) => e.type).filter((t) => t !== 'audio-chunk')).toEqual(['audio-start', 'audio-stop'])
    const [segment] = audioSegments(events)
    expect(segment).toMatchObject({ rate: 16000, width: 2, channels: 1 })
    // About 1024-sample chunks: all of them but the last exactly 1024.
    const chunks = events.filter((e) => e.type === 'audio-chunk').map((e) => e.payload!.length)
    expect(chunks.slice(0, -1).every((bytes) => bytes === 2048)).toBe(true)
    expect(chunks.at(-1)).toBeLessThanOrEqual(2048)
    // What Home Assistant makes of it: a WAV from the audio-start's format and the chunks.
    const wav = decodeWav(Buffer.concat([wavHeader({ encoding: 'pcm_s16le', sample_rate: 16000 }), segment!.pcm]))
    expect([wav.sampleRate, wav.channels, wav.bitsPerSample]).toEqual([16000, 1, 16])
    const expected = await engineAudio(text, voiceId('Sarah'), 'svc_pro_v1.0', 16000)
    expect(wav.data.equals(expected)).toBe(true)
    const seconds = wav.data.length / 2 / 16000
    expect(seconds).toBeGreaterThan(1.5)
    expect(seconds).toBeLessThan(5)
    expect(rms(s16(wav.data))).toBeGreaterThan(500)
    const logged = logs.find((l) => l.event === 'synthesize' && l.characters === text.length)
    expect(logged).toMatchObject({ voice_id: voiceId('Sarah'), model_id: 'svc_pro_v1.0' })
    expect(logged!.audio_seconds).toBeCloseTo(seconds, 3)
  })

  it('reads a voice by language, and a language code as a name, as wyoming-piper does; no voice is the first voice', async () => {
    const [spanish, byCode, none] = await Promise.all([
      synthesize({ text: 'Hola.', voice: { language: 'es_ES' } }),
      synthesize({ text: 'Hola.', voice: { name: 'es' } }),
      synthesize({ text: 'Hello.' }),
    ])
    const expected = await engineAudio('Hola.', voiceId('Lucía'), 'svc_flash_v1.5', 22050)
    expect(audioSegments(spanish)[0]!.pcm.equals(expected)).toBe(true)
    expect(audioSegments(byCode)[0]!.pcm.equals(expected)).toBe(true)
    expect(audioSegments(none)[0]!.pcm.equals(await engineAudio('Hello.', voiceId('Sarah'), 'svc_pro_v1.0', 16000))).toBe(true)
  })

  it('streams text sent a word at a time: each sentence its own start/stop as it completes, the first before synthesize-stop', async () => {
    const client = await connect()
    client.send('synthesize-start', { voice: { name: 'Sarah' } })
    const words = PARAGRAPH.split(/(?<= )/)
    const firstSentenceWords = SENTENCES[0]!.split(/(?<= )/).length
    // The first sentence, and the first word of the next (which completes it).
    for (const word of words.slice(0, firstSentenceWords + 1)) client.send('synthesize-chunk', { text: word })
    await client.until((e) => e.type === 'audio-chunk')
    for (const word of words.slice(firstSentenceWords + 1)) client.send('synthesize-chunk', { text: word })
    // Home Assistant repeats the whole text for servers that do not stream, then stops.
    client.send('synthesize', { text: PARAGRAPH, voice: { name: 'Sarah' } })
    client.send('synthesize-stop')
    const events = await client.until((e) => e.type === 'synthesize-stopped')
    client.close()
    expect(events.at(-1)!.type).toBe('synthesize-stopped')
    const segments = audioSegments(events)
    expect(segments).toHaveLength(3)
    for (const [index, sentence] of SENTENCES.entries()) {
      expect(segments[index]!.rate).toBe(16000)
      expect(segments[index]!.pcm.equals(await engineAudio(sentence.trim(), voiceId('Sarah'), 'svc_pro_v1.0', 16000))).toBe(true)
    }
    expect(logs.find((l) => l.event === 'synthesize-stream')).toMatchObject({ characters: PARAGRAPH.length, voice_id: voiceId('Sarah') })
  })

  it('speaks a pack voice by name and speaker, at the pack\'s rate (Piper and Kokoro)', async () => {
    const text = 'Hello there, this is a test.'
    const events = await synthesize({ text, voice: { name: 'en_US-fixturemulti-medium', speaker: 'alice' } })
    const [segment] = audioSegments(events)
    expect(segment!.rate).toBe(22050)
    const pack = engine.models.get('piper_multi').pack!
    const expected = await engineAudio(text, packVoiceId(pack, 'alice'), 'piper_multi', 22050)
    expect(segment!.pcm.equals(expected)).toBe(true)
    // A speaker by number, as wyoming-piper takes it.
    const carol = audioSegments(await synthesize({ text, voice: { name: 'en_US-fixturemulti-medium', speaker: '2' } }))[0]!
    expect(carol.pcm.equals(await engineAudio(text, packVoiceId(pack, 'carol'), 'piper_multi', 22050))).toBe(true)
    expect(carol.pcm.equals(segment!.pcm)).toBe(false)
    // A Kokoro pack's voice styles, at its 24 kHz.
    const michael = audioSegments(await synthesize({ text, voice: { name: 'kokoro', speaker: 'am_michael' } }))[0]!
    expect(michael.rate).toBe(24000)
    expect(michael.pcm.equals(await engineAudio(text, packVoiceId(engine.models.get('kokoro_pack').pack!, 'am_michael'), 'kokoro_pack', 24000))).toBe(true)
  })

  it('lists a cloned voice once it is made, and speaks with it by name', async () => {
    const clone = await engine.voices.clone(await speech(engine, 'Richard'), { name: 'Wyoming Clone', language: 'en' })
    const client = await connect()
    client.send('describe')
    const [info] = await client.until((e) => e.type === 'info')
    client.close()
    const voices = (info!.data.tts as { voices: { name: string; attribution: { name: string } }[] }[])[0]!.voices
    expect(voices.find((v) => v.name === 'Wyoming Clone')?.attribution.name).toBe('svc-tts voice clone')
    const text = 'A cloned voice speaks here.'
    const [segment] = audioSegments(await synthesize({ text, voice: { name: 'wyoming clone' } }))
    expect(segment!.pcm.equals(await engineAudio(text, clone.voice_id, 'svc_pro_v1.0', 16000))).toBe(true)
  })

  it.each([
    ['an unknown voice', { text: 'Hi.', voice: { name: 'Nobody' } }, 'VOICE_NOT_FOUND', "voice 'Nobody' is not a voice of this server (describe lists them)"],
    ['an unknown speaker', { text: 'Hi.', voice: { name: 'en_US-fixturemulti-medium', speaker: 'dave' } }, 'VOICE_NOT_FOUND', "voice 'en_US-fixturemulti-medium' has no speaker 'dave': alice, bob, carol"],
    ['a language no voice speaks', { text: 'Hi.', voice: { language: 'xx' } }, 'INVALID_LANGUAGE', "no voice speaks language 'xx' (describe lists each voice's languages)"],
    ['a text that is not a string', { text: 3 }, 'INVALID_REQUEST', 'invalid Wyoming synthesize event: text: Invalid input: expected string, received number'],
  ])('answers %s with an error event {text, code}, and nothing else', async (_what, data, code, text) => {
    const events = await synthesize(data)
    expect(events).toEqual([{ type: 'error', data: { text, code } }])
  })

  /** The engine's own reading of an SSML text: its audio, or the error it gives where it reads no SSML. */
  async function ssmlReading(text: string): Promise<{ audio?: Buffer; code?: string }> {
    try {
      return { audio: await engineAudio(text, voiceId('Sarah'), 'svc_pro_v1.0', 16000) }
    } catch (error) {
      return { code: (error as { code: string }).code }
    }
  }

  it('passes an SSML text to the engine as it is: its speech, or an error saying the SSML could not be read', async () => {
    const text = '<speak>Hello <break time="200ms"/> there.</speak>'
    const events = await synthesize({ text, text_format: 'ssml', voice: { name: 'Sarah' } })
    const reading = await ssmlReading(text)
    if (reading.audio) {
      expect(audioSegments(events)[0]!.pcm.equals(reading.audio)).toBe(true)
    } else {
      expect(reading.code).toBe('INVALID_MARKUP')
      expect(events).toHaveLength(1)
      expect(events[0]!.data.code).toBe('INVALID_MARKUP')
      expect(events[0]!.data.text).toMatch(/^the SSML could not be read: /)
    }
  })

  it('speaks an SSML stream whole at synthesize-stop, never cutting the document at a sentence', async () => {
    const client = await connect()
    client.send('synthesize-start', { voice: { name: 'Sarah' }, text_format: 'ssml' })
    const pieces = ['<speak>The birch canoe ', 'slid on the smooth planks. ', 'Glue the sheet ', 'to the dark blue background.</speak>']
    for (const text of pieces) client.send('synthesize-chunk', { text })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(client.events).toEqual([])
    client.send('synthesize-stop')
    const events = await client.until((e) => e.type === 'synthesize-stopped' || e.type === 'error')
    client.close()
    const reading = await ssmlReading(pieces.join(''))
    if (reading.audio) {
      expect(audioSegments(events).map((segment) => segment.pcm)).toEqual([reading.audio])
    } else {
      expect(events).toEqual([{ type: 'error', data: { code: 'INVALID_MARKUP', text: expect.stringMatching(/^the SSML could not be read: /) } }])
    }
  })

  it('reads events written a byte at a time', async () => {
    const client = await connect()
    client.socket.setNoDelay(true)
    const wire = Buffer.concat([frame('describe'), frame('synthesize', { text: 'Hello.', voice: { name: 'Sarah' } })])
    for (const byte of wire) {
      client.socket.write(Buffer.from([byte]))
      await new Promise((resolve) => setImmediate(resolve))
    }
    const events = await client.until((e) => e.type === 'audio-stop')
    client.close()
    expect(events[0]!.type).toBe('info')
    expect(audioSegments(events)[0]!.pcm.equals(await engineAudio('Hello.', voiceId('Sarah'), 'svc_pro_v1.0', 16000))).toBe(true)
  })

  it('keeps the connection after a request error, and answers the next event', async () => {
    const client = await connect()
    client.send('synthesize', { text: 'Hi.', voice: { name: 'Nobody' } })
    client.send('synthesize', { text: 'Hello.', voice: { name: 'Sarah' } })
    const events = await client.until((e) => e.type === 'audio-stop')
    client.close()
    expect(events[0]!.type).toBe('error')
    expect(audioSegments(events)).toHaveLength(1)
  })

  it('answers a malformed frame with an error event and closes the connection', async () => {
    const client = await connect()
    client.socket.write('{"type": "synthesize", "data_length": "many"}\n')
    await client.closing()
    expect(client.events).toEqual([{ type: 'error', data: { code: 'INVALID_MESSAGE', text: 'malformed Wyoming event: data_length must be a whole number of bytes' } }])
  })

  it('closes a connection whose header line runs past its bound, without buffering it', async () => {
    const client = await connect()
    client.socket.write(`{"type": "describe", "pad": "${'x'.repeat(70 * 1024)}`)
    await client.closing()
    expect(client.events.map((e) => e.data.code)).toEqual(['PAYLOAD_TOO_LARGE'])
  })

  it('serves 50 connections at once, each a paragraph: every one completes with the same speech', async () => {
    const expected = await engineAudio(PARAGRAPH, voiceId('Kal'), 'svc_pro_v1.0', 16000)
    const results = await Promise.all(Array.from({ length: 50 }, () => synthesize({ text: PARAGRAPH, voice: { name: 'Kal' } })))
    for (const events of results) {
      const segments = audioSegments(events)
      expect(segments).toHaveLength(1)
      expect(segments[0]!.pcm.equals(expected)).toBe(true)
    }
    expect(await waitUntil(() => server.connections === 0 && nativeIdle())).toBe(true)
  }, 120_000)

  it('synthesises no further ahead of a client that stops reading than the engine\'s bound, and goes on when it reads again', async () => {
    const text = PARAGRAPH.repeat(60)
    const client = await connect()
    client.send('synthesize', { text, voice: { name: 'Kal' } })
    await client.until((e) => e.type === 'audio-chunk')
    client.socket.pause()
    // The engine parks once the socket's buffers and its own 5 s ahead are full.
    expect(await waitUntil(() => engine.counters().activeTasks === 0 && engine.counters().unreadAudioBytes > 0, 40_000)).toBe(true)
    const parked = logs.length
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(engine.counters().activeTasks).toBe(0)
    // The engine's bound: 5 s ahead, plus the sentences in synthesis when it was reached.
    expect(engine.counters().unreadAudioBytes).toBeLessThanOrEqual(15 * 16000 * 2)
    expect(logs.length).toBe(parked)
    client.socket.resume()
    const events = await client.until((e) => e.type === 'audio-stop', 60_000)
    client.close()
    expect(audioSegments(events)[0]!.pcm.equals(await engineAudio(text, voiceId('Kal'), 'svc_pro_v1.0', 16000))).toBe(true)
  }, 90_000)

  it('cancels the native work of a client that leaves mid-sentence', async () => {
    const client = await connect()
    client.send('synthesize', { text: PARAGRAPH.repeat(20), voice: { name: 'Richard' } })
    await client.until((e) => e.type === 'audio-chunk')
    const before = logs.length
    client.close()
    expect(await waitUntil(() => server.connections === 0 && nativeIdle(), 3000)).toBe(true)
    expect(await waitUntil(() => logs.length > before)).toBe(true)
    expect(logs.at(-1)).toMatchObject({ event: 'synthesize', error_code: 'ABORTED' })
    expect(logs.at(-1)!.audio_seconds).toBeLessThan(60)
  })

  it('cancels a stream whose client leaves, with the sentences started ahead', async () => {
    const client = await connect()
    client.send('synthesize-start', { voice: { name: 'Alan' } })
    client.send('synthesize-chunk', { text: PARAGRAPH.repeat(10) })
    await client.until((e) => e.type === 'audio-chunk')
    client.close()
    expect(await waitUntil(() => server.connections === 0 && nativeIdle(), 3000)).toBe(true)
  })
})

describe('Wyoming server options', () => {
  it('admits only the addresses of its allow list', async () => {
    const only = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', allow: ['10.0.0.0/8'] })
    try {
      const refused = await WyomingClient.connect(Number(only.url.split(':').at(-1)))
      refused.send('describe')
      await refused.closing()
      expect(refused.events).toEqual([])
    } finally {
      await only.close()
    }
    const admitted = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', allow: ['127.0.0.1'] })
    try {
      const client = await WyomingClient.connect(Number(admitted.url.split(':').at(-1)))
      client.send('describe')
      await client.until((e) => e.type === 'info')
      client.close()
    } finally {
      await admitted.close()
    }
  })

  it('takes a stream\'s text in portions of its bound as sentences are spoken, and speaks every one in order', async () => {
    const small = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', maxPendingChars: 100 })
    try {
      const client = await WyomingClient.connect(Number(small.url.split(':').at(-1)))
      client.send('synthesize-start', { voice: { name: 'Sarah' } })
      // 12 sentences, 500 characters, sent at once: the server takes them as the sentences before are spoken.
      for (let i = 0; i < 4; i++) for (const sentence of SENTENCES) client.send('synthesize-chunk', { text: sentence.endsWith(' ') ? sentence : `${sentence} ` })
      client.send('synthesize-stop')
      const events = await client.until((e) => e.type === 'synthesize-stopped' || e.type === 'error', 60_000)
      client.close()
      const segments = audioSegments(events)
      expect(segments).toHaveLength(12)
      for (const [index, segment] of segments.entries()) {
        expect(segment.pcm.equals(await engineAudio(SENTENCES[index % 3]!.trim(), voiceId('Sarah'), 'svc_pro_v1.0', 16000))).toBe(true)
      }
    } finally {
      await small.close()
    }
  }, 90_000)

  it('closes gracefully: an idle connection at once, a busy one once its synthesis is sent whole', async () => {
    const closing = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0' })
    const port = Number(closing.url.split(':').at(-1))
    const busy = await WyomingClient.connect(port)
    const idle = await WyomingClient.connect(port)
    busy.send('synthesize', { text: PARAGRAPH, voice: { name: 'Alan' } })
    await busy.until((e) => e.type === 'audio-chunk')
    const closed = closing.close(20_000)
    await idle.closing()
    await busy.until((e) => e.type === 'audio-stop')
    await busy.closing()
    await closed
    expect(closing.connections).toBe(0)
    expect(await waitUntil(nativeIdle)).toBe(true)
    expect(audioSegments(busy.events)[0]!.pcm.equals(await engineAudio(PARAGRAPH, voiceId('Alan'), 'svc_pro_v1.0', 16000))).toBe(true)
    expect(idle.events).toEqual([])
  })

  it('refuses a new synthesis on a connection while it closes, and finishes a stream under way first', async () => {
    const closing = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0' })
    const client = await WyomingClient.connect(Number(closing.url.split(':').at(-1)))
    client.send('synthesize-start', { voice: { name: 'Sarah' } })
    client.send('synthesize-chunk', { text: SENTENCES[0]! })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const closed = closing.close(20_000)
    client.send('synthesize-chunk', { text: SENTENCES[1]! })
    client.send('synthesize-stop')
    client.send('synthesize', { text: 'Too late.' })
    await client.closing(20_000)
    await closed
    const types = client.events.map((e) => e.type).filter((t) => t !== 'audio-chunk')
    expect(types).toEqual(['audio-start', 'audio-stop', 'audio-start', 'audio-stop', 'synthesize-stopped', 'error'])
    expect(client.events.at(-1)!.data).toEqual({ code: 'SERVER_CLOSING', text: 'the Wyoming server is shutting down' })
  })

  it('speaks a synthesis that names no voice with its default voice', async () => {
    const spanish = await createWyomingServer(engine, { uri: 'tcp://127.0.0.1:0', defaultVoice: 'Mateo' })
    try {
      const client = await WyomingClient.connect(Number(spanish.url.split(':').at(-1)))
      client.send('synthesize', { text: 'Hola.' })
      const events = await client.until((e) => e.type === 'audio-stop')
      client.close()
      expect(audioSegments(events)[0]!.pcm.equals(await engineAudio('Hola.', voiceId('Mateo'), 'svc_flash_v1.5', 22050))).toBe(true)
    } finally {
      await spanish.close()
    }
  })

  it('listens on a Unix socket', async () => {
    const socketPath = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-wyoming-')), 'tts.sock')
    const unix = await createWyomingServer(engine, { uri: `unix://${socketPath}` })
    try {
      expect(unix.url).toBe(`unix://${socketPath}`)
      const client = await WyomingClient.connect(socketPath)
      client.send('synthesize', { text: 'Hello.', voice: { name: 'Sarah' } })
      const events = await client.until((e) => e.type === 'audio-stop')
      client.close()
      expect(audioSegments(events)[0]!.pcm.equals(await engineAudio('Hello.', voiceId('Sarah'), 'svc_pro_v1.0', 16000))).toBe(true)
    } finally {
      await unix.close()
    }
  })

  it('refuses a uri it cannot serve and an option it does not know', async () => {
    await expect(createWyomingServer(engine, { uri: 'http://127.0.0.1:10200' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: "Wyoming uri 'http://127.0.0.1:10200' is not tcp://host:port, unix://path or stdio://" })
    await expect(createWyomingServer(engine, { allow: ['not-an-address'] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(createWyomingServer(engine, { defaultVoice: 'Nobody' })).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND' })
    await expect(createWyomingServer(engine, { port: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining("unknown field 'port'") })
  })
})
