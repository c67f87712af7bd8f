// The Cartesia WebSocket translator alone: which SPEC messages each Cartesia message becomes as
// contexts open, continue, flush and end, and which Cartesia messages the connection's events
// become (one done per context, flush_done before it, nothing after a cancel's done).
import { describe, expect, it } from 'vitest'
import { TtsError } from '../../../lib/errors.js'
import { DEFAULT_MODELS, svcModel } from '../../../lib/server/dialects/cartesia/models.js'
import { CartesiaTranslator } from '../../../lib/server/dialects/cartesia/realtime.js'

const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 }
const request = (extra: Record<string, unknown>) => JSON.stringify({ model_id: 'sonic-3', voice: { mode: 'id', id: 'v1' }, output_format: RAW, language: 'en', ...extra })
const kinds = (messages: { kind: string }[]) => messages.map((m) => m.kind)

function refusal(call: () => unknown): TtsError {
  try {
    call()
  } catch (error) {
    return error as TtsError
  }
  throw new Error('not refused')
}

describe('Cartesia messages as the SPEC\'s', () => {
  it('the first request initialises the connection and opens its context; later ones only add text; continue: false ends it', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    const first = translator.messages(request({ context_id: 'a', transcript: 'Hello. ', continue: true }))
    expect(first).toEqual([
      { kind: 'initializeConnection', message: { model_id: 'svc_flash_v1.0', voice: { mode: 'id', id: 'v1' }, output_format: { ...RAW }, add_timestamps: true, speed: 1 } },
      { kind: 'text', message: { context_id: 'a', transcript: 'Hello. ', language: 'en' } },
    ])
    expect(translator.messages(request({ context_id: 'a', transcript: 'More.', continue: true }))).toEqual([{ kind: 'text', message: { context_id: 'a', transcript: 'More.' } }])
    expect(kinds(translator.messages(request({ context_id: 'a', transcript: '', flush: true, continue: true })))).toEqual(['text'])
    expect(translator.messages(request({ context_id: 'a', transcript: ' ', continue: false }))).toEqual([
      { kind: 'text', message: { context_id: 'a', transcript: ' ' } },
      { kind: 'closeContext', message: { context_id: 'a', close_context: true } },
    ])
    // Its text ended: the same id opens a new context.
    expect(kinds(translator.messages(request({ context_id: 'a', transcript: 'Again.' })))).toEqual(['text', 'closeContext'])
  })

  it('another context names only what differs from the connection; another format or a change inside a context is refused with its context_id', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    translator.messages(request({ context_id: 'a', transcript: 'Hi.', continue: true }))
    expect(translator.messages(request({ context_id: 'b', transcript: 'Yo.', continue: true, model_id: 'sonic-english', voice: 'v2', generation_config: { speed: 1.5 } }))).toEqual([
      { kind: 'text', message: { context_id: 'b', transcript: 'Yo.', model_id: 'svc_pro_v1.0', voice: { mode: 'id', id: 'v2' }, language: 'en', speed: 1.5 } },
    ])
    const format = refusal(() => translator.messages(request({ context_id: 'c', transcript: 'x', output_format: { ...RAW, sample_rate: 24000 } })))
    expect(format.code).toBe('FORMAT_NOT_RECOGNIZED')
    expect(format.extra?.context_id).toBe('c')
    const changed = refusal(() => translator.messages(request({ context_id: 'a', transcript: 'x', voice: 'v3', continue: true })))
    expect(changed.code).toBe('INVALID_MESSAGE')
    expect(changed.extra?.context_id).toBe('a')
    expect(refusal(() => translator.messages(request({ context_id: 'd', transcript: 'x', output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 16000 } }))).code).toBe('FORMAT_NOT_RECOGNIZED')
  })

  it('a cancel of an open context is the SPEC\'s cancel; of one that is done, nothing', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    translator.messages(request({ context_id: 'a', transcript: 'Hi.', continue: true }))
    expect(translator.messages(JSON.stringify({ context_id: 'a', cancel: true }))).toEqual([{ kind: 'cancel', message: { context_id: 'a', cancel: true } }])
    expect(translator.messages(JSON.stringify({ context_id: 'never', cancel: true }))).toEqual([])
  })
})

describe('the connection\'s events as Cartesia\'s', () => {
  it('audio is a chunk, words a timestamps message in seconds, the two final outputs one done after each flush_done', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    translator.messages(request({ context_id: 'a', transcript: 'Hi there.', add_timestamps: true, flush: true, continue: false }))
    const alignment = { words: ['Hi', 'there.'], word_start_times_milliseconds: [0, 250], word_end_times_milliseconds: [250, 600] }
    expect(translator.events({ context_id: 'a', audio: 'AAAA', final: false, alignment })).toEqual([
      { type: 'chunk', data: 'AAAA', done: false, status_code: 206, step_time: expect.any(Number), context_id: 'a' },
      { type: 'timestamps', done: false, status_code: 206, word_timestamps: { words: ['Hi', 'there.'], start: [0, 0.25], end: [0.25, 0.6] }, context_id: 'a' },
    ])
    expect(translator.events({ context_id: 'a', audio: 'BBBB', final: true })).toEqual([expect.objectContaining({ type: 'chunk', data: 'BBBB' })])
    expect(translator.events({ context_id: 'a', audio: '', final: true })).toEqual([
      { type: 'flush_done', done: false, flush_done: true, flush_id: 1, status_code: 200, context_id: 'a' },
      { type: 'done', done: true, status_code: 200, context_id: 'a' },
    ])
    expect(translator.events({ context_id: 'a', audio: '', final: true })).toEqual([])
  })

  it('a cancel\'s final output is the context\'s done, and nothing of it follows', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    translator.messages(request({ context_id: 'a', transcript: 'Hi.', continue: true }))
    expect(translator.events({ context_id: 'a', audio: '', final: true, cancelled: true })).toEqual([{ type: 'done', done: true, status_code: 200, context_id: 'a' }])
    expect(translator.events({ context_id: 'a', audio: 'AAAA', final: false })).toEqual([])
  })

  it('a failed initialisation is its context\'s error, once, and the next request initialises again', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    translator.messages(request({ context_id: 'a', transcript: 'Hi.' }))
    expect(translator.events({ error_code: 'VOICE_NOT_FOUND', message: "voice 'v1' not found" })).toEqual([
      expect.objectContaining({ type: 'error', status_code: 404, error_code: 'voice_not_found', title: 'Voice not found', error: "voice 'v1' not found", done: true, context_id: 'a' }),
    ])
    expect(translator.events({ error_code: 'INVALID_MESSAGE', message: 'the first message must be initializeConnection', context_id: 'a' })).toEqual([])
    expect(kinds(translator.messages(request({ context_id: 'a', transcript: 'Hi.' })))).toEqual(['initializeConnection', 'text', 'closeContext'])
  })
})

describe('the model table', () => {
  it('maps Cartesia\'s ids and their dated snapshots, passes other ids to the engine, refuses an unknown sonic id', () => {
    expect(svcModel(DEFAULT_MODELS, 'sonic-english')).toBe('svc_pro_v1.0')
    expect(svcModel(DEFAULT_MODELS, 'sonic-turbo-2025-03-07')).toBe('svc_flash_v1.5')
    expect(svcModel(DEFAULT_MODELS, 'svc_flash_v1.0')).toBe('svc_flash_v1.0')
    expect(svcModel(DEFAULT_MODELS, 'constructor')).toBe('constructor')
    expect(refusal(() => svcModel(DEFAULT_MODELS, 'sonic-9')).code).toBe('MODEL_NOT_FOUND')
  })
})

describe('a refused first request', () => {
  it('leaves the connection uninitialised, so the next request initialises it', () => {
    const translator = new CartesiaTranslator(DEFAULT_MODELS)
    expect(refusal(() => translator.messages(request({ context_id: 'a', transcript: 'Hi.', language: 'xx' }))).code).toBe('INVALID_LANGUAGE')
    expect(kinds(translator.messages(request({ context_id: 'a', transcript: 'Hi.' })))).toEqual(['initializeConnection', 'text', 'closeContext'])
  })
})
