// The ElevenLabs dialect's pure mappings: output_format names onto SPEC formats, and word times
// onto character times.
import { describe, expect, it } from 'vitest'
import { alignText, CharacterAligner, SpokenAligner, type CharTimes } from '../../../lib/server/dialects/elevenlabs/alignment.js'
import { parseOutputFormat } from '../../../lib/server/dialects/elevenlabs/formats.js'

const word = (index: number, text: string, startMs: number, endMs: number) => ({ index, text, startMs, endMs })

function expectOrdered(times: CharTimes, maxMs: number): void {
  times.startsMs.forEach((start, i) => {
    expect(start).toBeGreaterThanOrEqual(i > 0 ? times.startsMs[i - 1]! : 0)
    expect(times.endsMs[i]!).toBeGreaterThanOrEqual(start)
    expect(times.endsMs[i]!).toBeLessThanOrEqual(maxMs)
  })
}

describe('output_format', () => {
  it.each([
    ['mp3_44100_128', { container: 'mp3', sample_rate: 44100, bit_rate: 128000 }, 'audio/mpeg'],
    ['mp3_22050_32', { container: 'mp3', sample_rate: 22050, bit_rate: 32000 }, 'audio/mpeg'],
    ['pcm_24000', { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 }, 'audio/pcm'],
    ['ulaw_8000', { container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 }, 'audio/basic'],
    ['alaw_8000', { container: 'raw', encoding: 'pcm_alaw', sample_rate: 8000 }, 'audio/x-alaw-basic'],
    ['opus_48000_96', { container: 'ogg', sample_rate: 48000, bit_rate: 96000 }, 'audio/ogg; codecs=opus'],
    ['wav_16000', { container: 'wav', encoding: 'pcm_s16le', sample_rate: 16000 }, 'audio/wav'],
  ])('%s', (name, fields, contentType) => {
    expect(parseOutputFormat(name)).toEqual({ fields, contentType })
  })

  it('defaults to mp3_44100_128', () => {
    expect(parseOutputFormat(null)).toEqual(parseOutputFormat('mp3_44100_128'))
  })

  it.each(['pcm_32000', 'wav_32000', 'mp3_44100_8', 'mp3_8000_128', 'ulaw_16000', 'opus_24000_32', 'opus_48000_2', 'pcm_16000_16', 'mp3_44100', 'aac_44100', '', 'x'.repeat(10_000)])(
    '%s is refused, naming what is served',
    (name) => {
      expect(() => parseOutputFormat(name)).toThrow(expect.objectContaining({ code: 'FORMAT_NOT_RECOGNIZED', message: expect.stringContaining('supported: mp3_<rate>_<kbps>') }))
    },
  )
})

describe('character alignment', () => {
  it('spreads each word over its characters and the gaps over what lies between', () => {
    const text = 'Hi, you <break time="1s"/> there!'
    const times = alignText(text, [word(0, 'Hi', 0, 200), word(1, 'you', 250, 400), word(2, 'there', 1400, 1800)])
    expect(times.chars.join('')).toBe(text)
    expectOrdered(times, 1800)
    expect(times.startsMs[0]).toBe(0)
    expect(times.startsMs[1]).toBe(100)
    expect(times.startsMs[text.indexOf('there')]).toBe(1400)
    expect(times.endsMs.at(-1)).toBe(1800)  // the '!' after the last word sits at its end
  })

  it('keeps characters whole (surrogate pairs) and skips words the text does not hold', () => {
    const text = 'I 😀 paid $3.50 today'
    const times = alignText(text, [word(0, 'I', 0, 100), word(1, 'three dollars fifty', 200, 900), word(2, 'today', 1000, 1300)])
    expect(times.chars.join('')).toBe(text)
    expect(times.chars).toContain('😀')
    expectOrdered(times, 1300)
  })

  it('never runs backwards when the engine\'s times overlap', () => {
    const times = alignText('one two', [word(0, 'one', 0, 500), word(1, 'two', 300, 200)])
    expectOrdered(times, 500)
    expect(times.chars.join('')).toBe('one two')
  })

  it('piece by piece, as a stream\'s chunks come, gives the whole text once', () => {
    const text = 'First part. Second part.'
    const aligner = new CharacterAligner(text)
    const parts = [aligner.next([word(0, 'First', 0, 100), word(1, 'part', 100, 200)]), aligner.next([word(2, 'Second', 400, 600), word(3, 'part', 600, 800)]), aligner.finish()]
    expect(parts.flatMap((p) => p.chars).join('')).toBe(text)
    expect(parts[0]!.chars.join('')).toBe('First part')
    expect(parts.flatMap((p) => p.startsMs)).toEqual(alignText(text, [word(0, 'First', 0, 100), word(1, 'part', 100, 200), word(2, 'Second', 400, 600), word(3, 'part', 600, 800)]).startsMs)
  })

  it('the normalized text: the words as spoken joined by single spaces, the same whole or piece by piece', () => {
    const words = [word(0, 'Hello', 0, 300), word(1, 'there', 400, 700)]
    const whole = new SpokenAligner().next(words)
    expect(whole.chars.join('')).toBe('Hello there')
    const spoken = new SpokenAligner()
    const pieces = [spoken.next(words.slice(0, 1)), spoken.next(words.slice(1)), spoken.next([])]
    expect(pieces.flatMap((p) => p.chars)).toEqual(whole.chars)
    expect(pieces.flatMap((p) => p.startsMs)).toEqual(whole.startsMs)
  })
})
