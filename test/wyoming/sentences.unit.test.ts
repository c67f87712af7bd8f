// A stream's text cut into sentences as each completes, by the engine's own rule, however the text
// was split into chunks.
import { describe, expect, it } from 'vitest'
import { SentenceCutter } from '../../lib/server/wyoming/sentences.js'

/** Every sentence `cutter` gives for `pieces`, then the rest at the end. */
function cut(pieces: string[], cutter = new SentenceCutter('en', 10_000)): { sentences: string[][]; rest: string } {
  const sentences = pieces.map((piece) => cutter.write(piece))
  return { sentences, rest: cutter.end() }
}

describe('SentenceCutter', () => {
  it('gives a sentence once the next one begins, with the whitespace after it', () => {
    expect(cut(['Hello there.', ' How', ' are you?'])).toEqual({ sentences: [[], ['Hello there. '], []], rest: 'How are you?' })
  })

  it('gives the same sentences whether the text comes whole, a word at a time or a character at a time', () => {
    const text = 'Dr. Smith paid $3.50 for it. "Really?" she asked! It is 5 p.m. now. And then'
    // The engine's rule: "Dr." and "$3.50" end nothing; a question mark and "p.m." end a sentence.
    const expected = ['Dr. Smith paid $3.50 for it. ', '"Really?" ', 'she asked! ', 'It is 5 p.m. ', 'now. ']
    for (const pieces of [[text], text.split(/(?<= )/), [...text]]) {
      const { sentences, rest } = cut(pieces)
      expect(sentences.flat()).toEqual(expected)
      expect(rest).toBe('And then')
    }
  })

  it('cuts Chinese at its own punctuation', () => {
    const { sentences, rest } = cut(['你好。', '今天天气很好！', '我们'], new SentenceCutter('zh', 10_000))
    expect(sentences.flat()).toEqual(['你好。', '今天天气很好！'])
    expect(rest).toBe('我们')
  })

  it('keeps a markup tag whole', () => {
    expect(cut(['Wait.<break time="500ms"/> Then', ' go.']).sentences.flat()).toEqual(['Wait.<break time="500ms"/> '])
  })

  it('keeps the text whole, however many sentences, when asked to', () => {
    expect(cut(['<speak>One. ', 'Two. ', 'Three.</speak>'], new SentenceCutter('en', 10_000, true))).toEqual({
      sentences: [[], [], []],
      rest: '<speak>One. Two. Three.</speak>',
    })
  })

  it('refuses text waiting past its bound for its sentence to end', () => {
    const cutter = new SentenceCutter('en', 20)
    expect(cutter.write('no end in sight ')).toEqual([])
    expect(() => cutter.write('still none')).toThrow(expect.objectContaining({ code: 'TRANSCRIPT_TOO_LONG' }))
  })
})
