/**
 * The native audio encoder at its boundary: values it refuses with a coded TypeError, calls out of
 * order, configurations the codec libraries refuse, and teardown while encodes are in flight
 * (abort, engine.close(), a worker terminated, process.exit(), an encoder collected mid-call).
 */
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { createEngine, TtsError, type Container, type SynthesisRequest } from '../../lib/index.js'
import { loadNative, type NativeEncoderConfig } from '../../lib/native.js'
import { runNodeWithDeadline } from '../helpers/deadline-child.js'
import { testEngine, voiceId } from '../helpers/engine.js'

const root = path.resolve(import.meta.dirname, '../..')
const INDEX = JSON.stringify(path.join(root, 'lib/index.ts'))
const LONG = 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background. '.repeat(40)
const request = (container: Container, transcript = LONG): SynthesisRequest => ({
  model_id: 'svc_flash_v1.5',
  transcript,
  voice: { mode: 'id', id: voiceId('Sarah') },
  output_format: { container, sample_rate: 16000 },
})

/** One second of a 440 Hz tone as float32 PCM. */
function tone(rate: number, seconds = 1): Buffer {
  const samples = new Float32Array(Math.round(rate * seconds))
  for (let i = 0; i < samples.length; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / rate)
  return Buffer.from(samples.buffer)
}

async function settle(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (error: unknown) => error)
}

describe('the native audio encoder', async () => {
  const native = loadNative()
  const engine = await testEngine()  // initialises the pool

  it('refuses configurations and calls out of range with a coded TypeError', async () => {
    const good: NativeEncoderConfig = { codec: 'mp3', sampleRate: 16000, bitsPerSample: 16, bitRate: 64000 }
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ codec: 'aac' }, /codec must be 'mp3', 'opus' or 'flac'/],
      [{ codec: undefined }, /codec is required/],
      [{ sampleRate: 0 }, /sampleRate must be an integer from 8000 to 48000/],
      [{ sampleRate: 22050.5 }, /sampleRate must be an integer/],
      [{ sampleRate: Number.NaN }, /sampleRate must be an integer/],
      [{ sampleRate: 1e12 }, /sampleRate must be an integer/],
      [{ sampleRate: undefined }, /sampleRate is required/],
      [{ bitsPerSample: 20 }, /bitsPerSample must be 16 or 24/],
      [{ bitsPerSample: '16' }, /bitsPerSample must be an integer/],
      [{ bitRate: undefined }, /bitRate is required for mp3/],
      [{ bitRate: 1e9 }, /bitRate must be an integer from 6000 to 512000/],
      [{ headerSampleRate: -1 }, /headerSampleRate must be an integer/],
    ]
    for (const [patch, message] of bad) {
      let thrown: unknown
      try {
        new native.AudioEncoder({ ...good, ...patch } as NativeEncoderConfig)
      } catch (error) {
        thrown = error
      }
      expect(thrown, JSON.stringify(patch)).toBeInstanceOf(TypeError)
      expect((thrown as Error).message).toMatch(message)
      expect((thrown as { code?: string }).code).toBe('ERR_SVC_INVALID_ARGUMENT')
    }
    const encoder = new native.AudioEncoder(good)
    expect(() => encoder.encode('pcm' as unknown as Buffer)).toThrow(/pcm must be a Buffer/)
    expect(() => encoder.encode(Buffer.alloc(6))).toThrow(/not a whole number of float32 samples/)
    const first = encoder.encode(tone(16000))
    expect(() => encoder.encode(tone(16000))).toThrow(/one call at a time/)
    expect((await first).length).toBeGreaterThan(0)
    const tail = await encoder.finish()
    expect(tail.length).toBeGreaterThan(0)
    expect(() => encoder.encode(tone(16000))).toThrow(/the stream is finished/)
    expect(() => encoder.finish()).toThrow(/the stream is finished/)
  })

  it('rejects, without crashing, what the codec libraries refuse', async () => {
    const refused: [NativeEncoderConfig, RegExp][] = [
      [{ codec: 'mp3', sampleRate: 44100, bitsPerSample: 16, bitRate: 8000 }, /LAME refuses 8000 bits\/s at 44100 Hz/],
      [{ codec: 'mp3', sampleRate: 16000, bitsPerSample: 16, bitRate: 100000 }, /LAME refuses/],
      [{ codec: 'opus', sampleRate: 22050, bitsPerSample: 16, bitRate: 32000 }, /Opus does not encode at 22050 Hz/],
    ]
    for (const [config, message] of refused) {
      const error = await settle(new native.AudioEncoder(config).encode(tone(config.sampleRate)))
      expect(error, JSON.stringify(config)).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(message)
      expect((error as { code?: string }).code).toBe('ERR_SVC_INVALID_ARGUMENT')
    }
  })

  it('an aborted compressed stream stops, and leaves no native work behind', async () => {
    for (const container of ['mp3', 'ogg', 'flac'] as const) {
      const controller = new AbortController()
      let chunks = 0
      const error = await settle((async () => {
        for await (const _ of engine.stream(request(container), { signal: controller.signal })) {
          if (++chunks === 2) controller.abort()
        }
      })())
      expect(error).toBeInstanceOf(TtsError)
      expect((error as TtsError).code).toBe('ABORTED')
      for (let i = 0; i < 200 && engine.counters().activeTasks > 0; i++) await sleep(25)
      expect(engine.counters().activeTasks).toBe(0)
    }
  })

  it('engine.close() during compressed streams ends them with ENGINE_CLOSED', async () => {
    const closing = await createEngine()
    const streams = (['mp3', 'ogg', 'flac'] as const).map((container) => settle((async () => {
      let bytes = 0
      for await (const chunk of closing.stream(request(container))) bytes += chunk.length
      return bytes
    })()))
    await sleep(300)
    await closing.close()
    for (const error of await Promise.all(streams)) expect((error as TtsError).code).toBe('ENGINE_CLOSED')
  })

  it('encoders collected with calls in flight, a worker terminated mid-encode, and process.exit() are all clean', async () => {
    const result = await runNodeWithDeadline(['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', `
      import { Worker } from 'node:worker_threads'
      const { createEngine, PREDEFINED_VOICES } = await import(${INDEX})
      const { loadNative } = await import(${JSON.stringify(path.join(root, 'lib/native.ts'))})
      const engine = await createEngine()
      const native = loadNative()
      const pcm = Buffer.from(new Float32Array(48000 * 2).map((_, i) => 0.3 * Math.sin(i / 10)).buffer)
      // Encoders dropped while their calls are queued or running on the pool.
      for (let round = 0; round < 20; round++) {
        for (const codec of ['mp3', 'opus', 'flac']) new native.AudioEncoder({ codec, sampleRate: 48000, bitsPerSample: 24, bitRate: 64000 }).encode(pcm)
        globalThis.gc()
      }
      const source = \`
        import { parentPort } from 'node:worker_threads'
        import { register } from 'tsx/esm/api'
        register()
        const { createEngine, PREDEFINED_VOICES } = await import(${INDEX.replace(/"/g, "'")})
        const engine = await createEngine()
        const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
        parentPort.postMessage('ready')
        for (let i = 0; ; i++) {
          const container = ['mp3', 'ogg', 'flac'][i % 3]
          for await (const chunk of engine.stream({ model_id: 'svc_flash_v1.5', transcript: 'The birch canoe slid on the smooth planks. '.repeat(20), voice, output_format: { container } })) {}
        }
      \`
      for (let round = 0; round < 12; round++) {
        const worker = new Worker(source, { eval: true })
        await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
        await new Promise((r) => setTimeout(r, Math.random() * 200))
        await worker.terminate()
      }
      const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
      const file = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still here.', voice, output_format: { container: 'ogg' } })
      console.log('ok', file.length)
      // Exit while encodes are queued and running.
      for (const codec of ['mp3', 'opus', 'flac']) new native.AudioEncoder({ codec, sampleRate: 48000, bitsPerSample: 16, bitRate: 64000 }).encode(pcm)
      process.exit(0)
    `], { cwd: root, deadlineMs: 180_000 })
    expect(result.stderr).not.toMatch(/terminate called|Segmentation|Aborted|core dumped|FATAL ERROR/)
    expect(result.signal).toBeNull()
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/ok \d{3,}/)
  }, 200_000)
})
