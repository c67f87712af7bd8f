import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import {
  boundSegments,
  checkSpeechPlan,
  MAX_CJK_RUN_CHARS,
  MAX_DIGIT_GROUP_DIGITS,
  MAX_DIGIT_GROUPS_PER_PHRASE,
  MAX_TEXT_PIECE_CHARS,
  MAX_WORD_BYTES,
  MAX_WORD_CHARS,
} from '../../lib/text/bounds.js'
import { parseMarkup, planSpeech, type Language, type Segment, type TextSegment } from '../../lib/text/index.js'

function bound(transcript: string, language: Language = 'en'): Segment[] {
  const segments = boundSegments(parseMarkup(transcript), language)
  // Text is re-cut or blanked, never shifted: every segment still maps onto the transcript.
  for (const segment of segments) if (segment.kind === 'text') expect(segment.text.length).toBe(segment.end - segment.start)
  return segments
}

const texts = (segments: Segment[]): string[] => segments.filter((s): s is TextSegment => s.kind === 'text').map((s) => s.text)
const longestRun = (text: string): number => Math.max(0, ...text.split(/\s+/).map((run) => run.length))

describe('bounds on what reaches a backend', () => {
  it('cuts a run without spaces into words of at most MAX_WORD_CHARS, contiguous', () => {
    const segments = bound('x ' + 'a'.repeat(200) + ' y')
    expect(Math.max(...texts(segments).map(longestRun))).toBe(MAX_WORD_CHARS)
    expect(texts(segments).join('')).toBe('x ' + 'a'.repeat(200) + ' y')
    segments.slice(1).forEach((segment, i) => expect(segment.start).toBe(segments[i]!.end))
  })

  it('cuts a run of a script of two- or three-byte letters by its UTF-8 size, which is what the backends bound', () => {
    for (const letter of ['я', 'ह', 'ა']) {
      const transcript = 'x ' + letter.repeat(100) + ' y'
      const pieces = texts(bound(transcript, 'ru'))
      expect(pieces.join('')).toBe(transcript)
      const runs = pieces.flatMap((piece) => piece.split(/\s+/))
      expect(Math.max(...runs.map((run) => Buffer.byteLength(run)))).toBeLessThanOrEqual(MAX_WORD_BYTES)
      expect(runs.filter((run) => run.includes(letter)).length).toBeGreaterThan(1)
    }
  })

  it('never cuts inside a surrogate pair', () => {
    const pieces = texts(bound('a' + '𝕳'.repeat(100)))
    for (const piece of pieces) expect(piece).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/)
  })

  it('keeps only the first 8 marks of a run and blanks the rest, so the word after it stays', () => {
    expect(texts(bound('.'.repeat(100) + 'a')).join('')).toBe('........' + ' '.repeat(92) + 'a')
    expect(texts(bound('Wait... what?!')).join('')).toBe('Wait... what?!')
  })

  it('cuts Chinese and Japanese after punctuation, or at MAX_CJK_RUN_CHARS', () => {
    const sentence = 'あ'.repeat(99) + '。'
    const pieces = texts(bound(sentence + 'い'.repeat(100), 'ja'))
    expect(pieces[0]).toBe(sentence)
    expect(Math.max(...texts(bound('あ'.repeat(1000), 'ja')).map((p) => p.length))).toBe(MAX_CJK_RUN_CHARS)
  })

  it('hands text to a reader in pieces of at most MAX_TEXT_PIECE_CHARS, cut at spaces', () => {
    const pieces = texts(bound('word '.repeat(1000)))
    expect(pieces.length).toBeGreaterThan(4)
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(MAX_TEXT_PIECE_CHARS)
    expect(pieces.join('')).toBe('word '.repeat(1000))
  })

  it('reads a long digit group in groups, and a long digits tag in phrases the chunker may cut between', () => {
    const segments = bound(`<digits>${'1'.repeat(100)} ${'2 '.repeat(60)}</digits>`)
    const groups = segments.flatMap((s) => (s.kind === 'digits' ? [s.groups.length] : []))
    expect(groups).toEqual([MAX_DIGIT_GROUPS_PER_PHRASE, MAX_DIGIT_GROUPS_PER_PHRASE, 64 - 2 * MAX_DIGIT_GROUPS_PER_PHRASE])
    const first = segments[0]!
    expect(first.kind === 'digits' && first.groups.slice(0, 4).map((g) => g.digits.length)).toEqual([32, 32, 32, 100 - 3 * MAX_DIGIT_GROUP_DIGITS])
  })

  it('refuses a phonemes tag of three words, or an IPA word of more than 64 symbols, with the offset', () => {
    const threeWords = (() => bound('Say <phonemes>wʌn tuː θɹiː</phonemes>'))
    expect(threeWords).toThrow(TtsError)
    expect(threeWords).toThrow(/offset 22.*at most 2 words/)
    expect(() => bound(`<phonemes>${'ta'.repeat(33)}</phonemes>`)).toThrow(/at most 64 symbols/)
    expect(bound('<phonemes>həˈləʊ wɜːld</phonemes>')).toHaveLength(1)
  })
})

describe('checkSpeechPlan', () => {
  const limits = { maxAudioSeconds: 60, speed: 1 }
  const code = async (transcript: string, backend: 'espeak' | 'flite' = 'espeak'): Promise<string | null> => {
    try {
      checkSpeechPlan(await planSpeech(transcript, { language: 'en', backend }), limits)
      return null
    } catch (error) {
      return (error as TtsError).code
    }
  }

  it('refuses a plan with no word and no break as NO_SPEECH', async () => {
    expect(await code('  \n ')).toBe('NO_SPEECH')
    expect(await code('... !? —')).toBe('NO_SPEECH')
    expect(await code('😀 🎉', 'flite')).toBe('NO_SPEECH')
    expect(await code("<break time='0s'/>")).toBe('NO_SPEECH')
  })

  it('accepts a plan that only asks for a pause, and one with a word', async () => {
    expect(await code("<break time='1s'/>")).toBeNull()
    expect(await code('Hi.')).toBeNull()
  })

  it('refuses a plan whose estimated audio, breaks included, is over the limit', async () => {
    expect(await code("<break time='5s'/> a ".repeat(13))).toBe('AUDIO_TOO_LONG')
    expect(await code("<break time='5s'/> a ".repeat(10))).toBeNull()
    expect(await code('word '.repeat(200))).toBe('AUDIO_TOO_LONG')  // about 67 s at 15 characters a second
  })
})
