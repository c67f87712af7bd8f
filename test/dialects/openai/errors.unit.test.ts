// Every svc-tts error code has its OpenAI shape: client errors are OpenAI's invalid_request_error
// (or its rate-limit and quota types), server failures server_error, and a fault the SPEC's gate
// names is pointed at the OpenAI field the client sent.
import { describe, expect, it } from 'vitest'
import { ERROR_STATUS, TtsError, type ErrorCode } from '../../../lib/errors.js'
import { OPENAI_DIALECT } from '../../../lib/server/dialects/openai/errors.js'
import { errorResponse } from '../../../lib/server/responses.js'

const CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

describe('OpenAI error bodies', () => {
  it.each(CODES)('%s', (code) => {
    const { status, json } = errorResponse(new TtsError(code, 'what happened'), OPENAI_DIALECT)
    const { error } = json as { error: { message: string; type: string; param: string | null; code: string } }
    expect(error.code).toMatch(/^[a-z_]+$/)
    expect(error.param === null || typeof error.param === 'string').toBe(true)
    if (status >= 500) {
      expect(error.type).toBe('server_error')
      // A failure of the server's own says only that (503 and 507 say what the client can wait for).
      if (status === 500) expect(error.message).toBe('internal server error')
    } else {
      expect(error.message).toBe('what happened')
      expect(['invalid_request_error', 'requests', 'insufficient_quota']).toContain(error.type)
    }
    if (status === 429) expect(['rate_limit_exceeded', 'insufficient_quota']).toContain(error.code)
  })

  it('answers with OpenAI\'s statuses where they differ: a model it lacks is 404, a voice 400', () => {
    expect(errorResponse(new TtsError('MODEL_NOT_FOUND', 'x'), OPENAI_DIALECT)).toMatchObject({ status: 404, json: { error: { code: 'model_not_found', param: 'model' } }, errorCode: 'MODEL_NOT_FOUND' })
    expect(errorResponse(new TtsError('VOICE_NOT_FOUND', 'x'), OPENAI_DIALECT)).toMatchObject({ status: 400, json: { error: { code: 'invalid_value', param: 'voice' } } })
    expect(errorResponse(new TtsError('INVALID_API_KEY', 'x'), OPENAI_DIALECT)).toMatchObject({ status: 401, json: { error: { code: 'invalid_api_key', type: 'invalid_request_error', param: null } } })
  })

  it('names the OpenAI field of the first fault a schema found', () => {
    const fault = (path: string[]) => new TtsError('INVALID_REQUEST', 'x', { extra: { issues: [{ path, message: 'bad' }] } })
    const param = (error: TtsError) => (errorResponse(error, OPENAI_DIALECT).json as { error: { param: string | null } }).error.param
    expect(param(fault(['transcript']))).toBe('input')
    expect(param(fault(['model_id']))).toBe('model')
    expect(param(fault(['output_format', 'sample_rate']))).toBe('response_format')
    expect(param(fault(['speed']))).toBe('speed')
    expect(param(fault([]))).toBeNull()
  })

  it('takes the key from Authorization: Bearer', () => {
    expect(OPENAI_DIALECT.key({ authorization: 'Bearer sk_abc' })).toBe('sk_abc')
    expect(OPENAI_DIALECT.key({ 'x-api-key': 'sk_abc' })).toBeUndefined()
  })
})
