import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { NAMED_UNKNOWN_FIELDS, parseWith, strictObject } from '../../lib/validation/parse.js'

const schema = strictObject({ transcript: z.string(), output_format: z.object({}).optional() })
const failure = (value: unknown) => {
  try {
    parseWith(schema, value, 'request')
  } catch (error) {
    return error as { code: string; message: string }
  }
  throw new Error('it parsed')
}

describe('strict objects', () => {
  it('name an unknown field and the known field it is closest to', () => {
    expect(failure({ transcript: 'x', outputFormat: {} })).toMatchObject({ code: 'INVALID_REQUEST', message: "invalid request: unknown field 'outputFormat' (did you mean 'output_format'?)" })
  })

  it(`name at most ${NAMED_UNKNOWN_FIELDS} unknown fields and count the rest, so a body of 100 000 of them costs neither a long error nor a long time`, () => {
    // Issue 20: one such 1 MiB WebSocket frame or body took over a second to refuse, with an error of 3 MB.
    const value = Object.fromEntries([['transcript', 'x'], ...Array.from({ length: 100_000 }, (_, i) => [`field_${i}`, 1])])
    const started = performance.now()
    const { message } = failure(value)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(message.length).toBeLessThan(1000)
    expect(message).toMatch(/unknown field 'field_7'; and 99992 more unknown fields$/)
    expect(failure({ transcript: 'x', ['k'.repeat(100_000)]: 1 }).message.length).toBeLessThan(200)
  })
})
