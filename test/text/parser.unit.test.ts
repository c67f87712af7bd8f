import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { parseMarkup } from '../../lib/text/index.js'

function markupError(transcript: string): TtsError {
  try {
    parseMarkup(transcript)
  } catch (error) {
    expect(error).toBeInstanceOf(TtsError)
    return error as TtsError
  }
  throw new Error(`no error for ${transcript}`)
}

describe('parseMarkup', () => {
  it('keeps plain text, including a literal < that starts no tag', () => {
    expect(parseMarkup('if a<b and 3 < 4, <3 <breakfast')).toEqual([
      { kind: 'text', text: 'if a<b and 3 < 4, <3 <breakfast', start: 0, end: 31 },
    ])
  })

  it('parses a break in either quote style, ms or s, with its span', () => {
    const transcript = `a<break time='500ms'/>b<break time="0.5s" />c<break time='1s'/>`
    expect(parseMarkup(transcript)).toEqual([
      { kind: 'text', text: 'a', start: 0, end: 1 },
      { kind: 'break', ms: 500, start: 1, end: 22 },
      { kind: 'text', text: 'b', start: 22, end: 23 },
      { kind: 'break', ms: 500, start: 23, end: 44 },
      { kind: 'text', text: 'c', start: 44, end: 45 },
      { kind: 'break', ms: 1000, start: 45, end: 63 },
    ])
  })

  it.each([
    ['0.4ms', 0],
    ['0ms', 0],
    ['1.5ms', 2],
    ['80ms', 80],
    ['.25s', 250],
    ['5000ms', 5000],
    ['7s', 5000],
    ['99999999s', 5000],
  ])('rounds and clamps a break of %s to %i ms', (time, ms) => {
    expect(parseMarkup(`<break time='${time}'/>`)).toEqual([{ kind: 'break', ms, start: 0, end: 16 + time.length }])
  })

  it('parses phonemes into IPA words with their own spans', () => {
    expect(parseMarkup('say <phonemes> ˈtʃiːz  kɛɪk </phonemes>!')).toEqual([
      { kind: 'text', text: 'say ', start: 0, end: 4 },
      { kind: 'phonemes', words: [{ ipa: 'ˈtʃiːz', start: 15, end: 21 }, { ipa: 'kɛɪk', start: 23, end: 27 }], start: 4, end: 39 },
      { kind: 'text', text: '!', start: 39, end: 40 },
    ])
  })

  it('parses digits into groups, and accepts a break right after', () => {
    expect(parseMarkup(`<digits>4 1 55</digits><break time='200ms'/>`)).toEqual([
      {
        kind: 'digits',
        groups: [{ digits: '4', start: 8, end: 9 }, { digits: '1', start: 10, end: 11 }, { digits: '55', start: 12, end: 14 }],
        start: 0,
        end: 23,
      },
      { kind: 'break', ms: 200, start: 23, end: 44 },
    ])
  })

  it('accepts tag names in any case', () => {
    expect(parseMarkup(`<BREAK time='1s'/>`)).toEqual([{ kind: 'break', ms: 1000, start: 0, end: 18 }])
    expect(parseMarkup(`<BREAK TIME="1s"/>`)).toEqual([{ kind: 'break', ms: 1000, start: 0, end: 18 }])
  })

  it.each([
    ['hello <phonemes>ha', 6, 'unclosed <phonemes>'],
    ['hello <digits>1 2', 6, 'unclosed <digits>'],
    ['x <break time="1s"', 2, "missing '>'"],
    ['x <b>bold</b>', 2, 'unknown tag <b>'],
    ['x <speak>', 2, 'unknown tag <speak>'],
    ['x </phonemes>', 2, 'without a matching opening tag'],
    ['x </digits>', 2, 'without a matching opening tag'],
    ['x </break>', 2, 'self-closing'],
    ["x <break time='1s'>", 2, 'self-closing'],
    ['x <break/>', 2, 'exactly one attribute'],
    ["x <break time='1s' rate='2'/>", 2, 'exactly one attribute'],
    ['x <break time=1s/>', 2, 'exactly one attribute'],
    ["x <break time='fast'/>", 2, "bad break duration 'fast'"],
    ["x <break time='-1s'/>", 2, "bad break duration '-1s'"],
    ["x <break time='1'/>", 2, "bad break duration '1'"],
    ["x <break time='1 min'/>", 2, "bad break duration '1 min'"],
    ["<phonemes>a<break time='1s'/></phonemes>", 11, 'a break is not allowed inside <phonemes>'],
    ['<phonemes>a<digits>1</digits></phonemes>', 11, 'tags cannot be nested'],
    ['<digits>1 <phonemes>a</phonemes></digits>', 10, 'tags cannot be nested'],
    ['<digits>1 <digits>2</digits></digits>', 10, 'tags cannot be nested'],
    ['<phonemes lang="en">a</phonemes>', 0, 'takes no attributes'],
    ['<phonemes/>', 0, 'takes no attributes'],
    ['<phonemes> </phonemes>', 0, '<phonemes> is empty'],
    ['<digits></digits>', 0, '<digits> is empty'],
    ['<digits>4-1</digits>', 9, "found '-'"],
    ['<digits>one</digits>', 8, "found 'o'"],
    ['<phonemes>a</phonemes x>', 11, 'malformed closing tag'],
  ])('rejects %j at offset %i', (transcript, offset, message) => {
    const error = markupError(transcript)
    expect(error.code).toBe('INVALID_MARKUP')
    expect(error.status).toBe(400)
    expect(error.extra).toEqual({ offset })
    expect(error.message).toContain(`offset ${offset}`)
    expect(error.message).toContain(message)
  })
})
