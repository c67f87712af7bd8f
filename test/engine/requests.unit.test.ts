// Issue 20, case 21: unknown fields were dropped at run time: a JavaScript caller's
// `outputFormat: { container: 'mp3' }` got a WAV, `sampleRate: 8000` 44.1 kHz. The request schemas
// refuse what they do not know, naming it and the field it likely meant.
import { describe, expect, it } from 'vitest'
import { parseRequest, TtsError } from '../../lib/schemas/index.js'

const base = { model_id: 'svc_flash_v1.5', transcript: 'Hi.', voice: { mode: 'id', id: 'x' } }

function refusal(value: unknown): TtsError {
  try {
    parseRequest(value, 'synthesis')
  } catch (error) {
    if (error instanceof TtsError) return error
    throw error
  }
  throw new Error('accepted')
}

describe('strict request schemas', () => {
  it('name an unknown field and the one it likely meant', () => {
    const camel = refusal({ ...base, outputFormat: { container: 'mp3' } })
    expect(camel.code).toBe('INVALID_REQUEST')
    expect(camel.message).toContain("unknown field 'outputFormat' (did you mean 'output_format'?)")
  })

  it('inside output_format too, with the format\'s own code', () => {
    const rate = refusal({ ...base, output_format: { sampleRate: 8000 } })
    expect(rate.code).toBe('FORMAT_NOT_RECOGNIZED')
    expect(rate.message).toContain("unknown field 'sampleRate' (did you mean 'sample_rate'?)")
  })

  it('and a field like nothing they know, without a guess', () => {
    expect(refusal({ ...base, colour: 'blue' }).message).toMatch(/unknown field 'colour'(?! \()/)
  })

  it('in the voice selector as well', () => {
    expect(refusal({ ...base, voice: { mode: 'id', id: 'x', voiceId: 'y' } }).message).toContain("unknown field 'voiceId'")
  })
})
