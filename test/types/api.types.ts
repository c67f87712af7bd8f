/**
 * Type tests of the public API: `npm run typecheck` (tsc) checks this file. Each
 * `@ts-expect-error` line must fail to compile (an unused one is itself an error, TS2578), and
 * every other line must compile. Nothing here runs.
 */
import type { z } from 'zod'
import {
  createEngine,
  type Engine,
  type ListVoicesOptions,
  type ModelId,
  type SpeechSessionRequest,
  type SpeechChunk,
  type SynthesisRequest,
  type synthesisRequestSchema,
  type TimestampedSpeech,
  type VoiceRecord,
} from '../../lib/index.js'
import { createTtsServer, createTtsService } from '../../lib/server/index.js'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const assertType = <T extends true>(_: T): void => {}

const voice = { mode: 'id', id: 'f0d77cac-2962-5f1e-a89a-dac972695bbd' } as const

export async function synthesisRequests(engine: Engine): Promise<void> {
  // Accepted: the SPEC's fields, every model id, container, encoding and rate, and the speed extension.
  const full: SynthesisRequest = {
    model_id: 'svc_flash_v1.0',
    transcript: 'Hello.',
    voice,
    output_format: { container: 'wav', encoding: 'pcm_f32le', sample_rate: 22050 },
    language: 'fr',
    speed: 1.5,
  }
  const audio: Buffer = await engine.synthesize(full)
  void audio
  await engine.synthesize({ model_id: 'svc_pro_v1.0', transcript: 'Hi.', voice })
  await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Hi.', voice, output_format: { sample_rate: 8000, encoding: 'pcm_mulaw' } })
  for await (const part of engine.stream({ ...full, output_format: { container: 'raw' } })) void (part satisfies Buffer)
  await engine.synthesize({ ...full, output_format: { container: 'mp3', bit_rate: 128_000 } })
  await engine.synthesize({ ...full, output_format: { container: 'ogg', encoding: 'pcm_f32le', sample_rate: 48000 } })
  await engine.synthesize({ ...full, output_format: { container: 'flac' } })
  for await (const chunk of engine.speak(full)) void (chunk satisfies SpeechChunk)
  const timed: TimestampedSpeech = await engine.synthesizeWithTimestamps(full)
  void timed

  // @ts-expect-error a misspelt field
  await engine.synthesize({ model_id: 'svc_pro_v1.0', transcrpt: 'Hi.', voice })
  // @ts-expect-error no transcript
  await engine.synthesize({ model_id: 'svc_pro_v1.0', voice })
  // @ts-expect-error a model id that is not one of the engine's
  await engine.synthesize({ ...full, model_id: 'svc_ultra_v2' })
  // @ts-expect-error a sample rate the engine does not make
  await engine.synthesize({ ...full, output_format: { sample_rate: 11025 } })
  // @ts-expect-error a sample rate as a string
  await engine.synthesize({ ...full, output_format: { sample_rate: '44100' } })
  // @ts-expect-error an unknown container
  await engine.synthesize({ ...full, output_format: { container: 'mp4' } })
  // @ts-expect-error a bit rate as a string
  await engine.synthesize({ ...full, output_format: { container: 'mp3', bit_rate: '128k' } })
  // @ts-expect-error an unknown encoding
  await engine.synthesize({ ...full, output_format: { encoding: 'pcm_u8' } })
  // @ts-expect-error a misspelt output_format field
  await engine.synthesize({ ...full, output_format: { samplerate: 16000 } })
  // @ts-expect-error speed is a number
  await engine.synthesize({ ...full, speed: '1.5' })
  // @ts-expect-error a voice selector mode other than id
  await engine.synthesize({ ...full, voice: { mode: 'name', id: 'Sarah' } })
  // @ts-expect-error a language name instead of its code
  await engine.synthesize({ ...full, language: 'english' })
  // @ts-expect-error the stream takes the same request
  engine.stream({ ...full, model_id: 'svc_flash_v2' })
  // @ts-expect-error and so does the timestamped call
  await engine.synthesizeWithTimestamps({ ...full, output_format: { container: 'flac-ish' } })
}

export async function sessions(engine: Engine): Promise<void> {
  const request: SpeechSessionRequest = { model_id: 'svc_flash_v1.5', voice, speed: 0.75 }
  const session = await engine.open(request)
  session.write('Hello ')
  session.end()
  await engine.open({ ...request, transcript: 'Written at once. ' })
  // @ts-expect-error a misspelt field
  await engine.open({ ...request, transcrpt: 'Hi' })
  // @ts-expect-error a bad sample rate
  await engine.open({ ...request, output_format: { sample_rate: 44000 } })
  // @ts-expect-error write takes text
  session.write(42)
}

export async function packModelIds(): Promise<void> {
  // The keys of the `models` option become model ids of the engine it makes.
  const engine = await createEngine({ models: { my_piper: { type: 'piper', path: '/voices/x.onnx' } } })
  await engine.synthesize({ model_id: 'my_piper', transcript: 'Hi.', voice })
  await engine.synthesize({ model_id: 'svc_pro_v1.0', transcript: 'Hi.', voice })
  // @ts-expect-error a pack id the engine was not given
  await engine.synthesize({ model_id: 'my_kokoro', transcript: 'Hi.', voice })
  // @ts-expect-error a pack of an unknown type
  await createEngine({ models: { x: { type: 'vits', path: '/voices/x.onnx' } } })
  // @ts-expect-error a misspelt engine option
  await createEngine({ thread: 2 })
  const builtin = await createEngine()
  // @ts-expect-error an engine without packs takes only the SPEC's ids
  await builtin.synthesize({ model_id: 'my_piper', transcript: 'Hi.', voice })
}

export async function voiceOperations(engine: Engine): Promise<void> {
  const clip = Buffer.alloc(0)
  const record: VoiceRecord = await engine.voices.clone(clip, { name: 'Mine', language: 'en', gender: 'Female' })
  await engine.voices.update(record.voice_id, { name: 'Ours', description: 'a voice' })
  const page = await engine.voices.list({ limit: 10, language: 'de', voice_type: 'CUSTOM' })
  void page.next_cursor
  // @ts-expect-error a clone needs its name
  await engine.voices.clone(clip, { language: 'en' })
  // @ts-expect-error a clone's language is a code the engine speaks
  await engine.voices.clone(clip, { name: 'Mine', language: 'xx' })
  // @ts-expect-error gender is Male or Female
  await engine.voices.clone(clip, { name: 'Mine', language: 'en', gender: 'Other' })
  // @ts-expect-error voice_type cannot be changed
  await engine.voices.update(record.voice_id, { voice_type: 'PREDEFINED' })
  // @ts-expect-error limit is a number
  await engine.voices.list({ limit: '10' })
  // @ts-expect-error getBatch takes ids
  await engine.voices.getBatch([1, 2])
}

export function serverOptions(engine: Engine): void {
  createTtsServer({ engine, maxBodyBytes: 1 << 20, keys: ['sk_test'], realtime: { maxContexts: 8 } })
  createTtsService({ engine, limits: { requestsPerWindow: 10, windowSeconds: 60 } })
  // @ts-expect-error a misspelt limit
  createTtsService({ engine, limits: { requestsPerMinute: 10 } })
  // @ts-expect-error a misspelt option
  createTtsServer({ engine, maxBodyByte: 1 })
  // @ts-expect-error the engine is required
  createTtsService({ maxBodyBytes: 1 })
  // @ts-expect-error realtime limits are numbers
  createTtsServer({ engine, realtime: { maxContexts: 'many' } })
}

// One source of truth: the public request type is the schema's input type with the model ids narrowed.
assertType<Equal<SynthesisRequest<string>['output_format'], z.input<typeof synthesisRequestSchema>['output_format']>>(true)
assertType<Equal<Omit<SynthesisRequest<string>, 'model_id'>, Omit<z.input<typeof synthesisRequestSchema>, 'model_id'>>>(true)
assertType<Equal<SynthesisRequest['model_id'], ModelId>>(true)
assertType<Equal<ModelId, 'svc_pro_v1.0' | 'svc_flash_v1.5' | 'svc_flash_v1.0'>>(true)
assertType<Equal<ListVoicesOptions['gender'], 'Male' | 'Female' | undefined>>(true)
