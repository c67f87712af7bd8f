import { describe, expect, it } from 'vitest'
import { createEngine, TtsError, type SynthesisRequest } from '../../lib/index.js'
import { testEngine, voiceId } from '../helpers/engine.js'

const valid: SynthesisRequest = { model_id: 'svc_flash_v1.5', transcript: 'Hello.', voice: { mode: 'id', id: voiceId('Sarah') } }

async function failure(promise: Promise<unknown>): Promise<TtsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(TtsError)
  return error as TtsError
}

describe('request errors carry stable codes and HTTP statuses', async () => {
  const engine = await testEngine()
  const cases: [string, unknown, string, number][] = [
    ['unknown voice', { ...valid, voice: { mode: 'id', id: '00000000-0000-5000-8000-000000000000' } }, 'VOICE_NOT_FOUND', 404],
    ['language the model lacks', { ...valid, language: 'ja' }, 'INVALID_LANGUAGE', 400],
    ['unknown language code', { ...valid, model_id: 'svc_flash_v1.0', language: 'xx' }, 'INVALID_LANGUAGE', 400],
    ['voice whose language the model lacks', { ...valid, model_id: 'svc_pro_v1.0', voice: { mode: 'id', id: voiceId('Camille') } }, 'INVALID_LANGUAGE', 400],
    ['unknown encoding', { ...valid, output_format: { encoding: 'mp3' } }, 'FORMAT_NOT_RECOGNIZED', 400],
    ['unsupported sample rate', { ...valid, output_format: { sample_rate: 12345 } }, 'FORMAT_NOT_RECOGNIZED', 400],
    ['unknown container', { ...valid, output_format: { container: 'aac' } }, 'FORMAT_NOT_RECOGNIZED', 400],
    ['output_format not an object', { ...valid, output_format: 'wav' }, 'FORMAT_NOT_RECOGNIZED', 400],
    ['unknown model', { ...valid, model_id: 'svc_ultra' }, 'MODEL_NOT_FOUND', 400],
    ['missing transcript', { model_id: valid.model_id, voice: valid.voice }, 'INVALID_REQUEST', 400],
    ['empty transcript', { ...valid, transcript: '' }, 'INVALID_REQUEST', 400],
    ['voice mode other than id', { ...valid, voice: { mode: 'name', id: 'Sarah' } }, 'INVALID_REQUEST', 400],
    ['not an object', 'say hello', 'INVALID_REQUEST', 400],
    ['malformed markup', { ...valid, transcript: 'Wait <break time="fast"/> here' }, 'INVALID_MARKUP', 400],
  ]
  for (const [what, request, code, status] of cases) {
    it(`${what}: ${status} ${code}`, async () => {
      // Requests as JavaScript (or `as any`) callers send them: checked at run time.
      for (const call of [engine.synthesize(request as never), engine.synthesizeWithTimestamps(request as never)]) {
        const error = await failure(call)
        expect(error.code).toBe(code)
        expect(error.status).toBe(status)
        expect(error.message.length).toBeGreaterThan(10)
      }
      const streamError = await failure((async () => {
        for await (const _ of engine.stream(request as never)) void _
      })())
      expect(streamError.code).toBe(code)
    })
  }

  it('a streamed WAV whose transcript fails to plan sends no byte before the error', async () => {
    const parts: Buffer[] = []
    const error = await failure((async () => {
      for await (const part of engine.stream({ ...valid, transcript: 'Hi <break/>', output_format: { container: 'wav' } })) parts.push(part)
    })())
    expect(error.code).toBe('INVALID_MARKUP')
    expect(parts).toEqual([])
  })

  it('markup errors name the character offset', async () => {
    const error = await failure(engine.synthesize({ ...valid, transcript: 'Hello <digits>1 2' }))
    expect(error.message).toMatch(/\b6\b/)
  })

  it('a transcript over the limit is rejected before any work', async () => {
    const small = await createEngine({ maxTranscriptChars: 50 })
    const error = await failure(small.synthesize({ ...valid, transcript: 'a'.repeat(51) }))
    expect(error.code).toBe('TRANSCRIPT_TOO_LONG')
    expect(error.status).toBe(400)
  })

  it('bad engine options are rejected with INVALID_REQUEST', async () => {
    for (const options of [{ threads: 0 }, { threadNice: 20 }, { threadNice: -1 }, { queueCapacity: 1.5 }, { maxTranscriptChars: -1 }]) {
      const error = await failure(createEngine(options))
      expect(error.code).toBe('INVALID_REQUEST')
    }
  })

  it('a closed engine refuses new work with ENGINE_CLOSED', async () => {
    const closing = await createEngine()
    await closing.close()
    expect((await failure(closing.synthesize(valid))).code).toBe('ENGINE_CLOSED')
  })

  it('closing an engine ends its live streams', async () => {
    const closing = await createEngine()
    const iterator = closing.stream({ ...valid, transcript: 'One two three. '.repeat(200) })[Symbol.asyncIterator]()
    await iterator.next()
    await closing.close()
    const error = await failure(iterator.next())
    expect(error.code).toBe('ENGINE_CLOSED')
  })

  it('errors serialise to the SPEC error shape', () => {
    const error = new TtsError('VOICE_NOT_FOUND', 'no voice has id x', { extra: { voice_id: 'x' } })
    expect(JSON.parse(JSON.stringify(error))).toEqual({ error_code: 'VOICE_NOT_FOUND', message: 'no voice has id x', extra: { voice_id: 'x' } })
  })
})
