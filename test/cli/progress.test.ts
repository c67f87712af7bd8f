import { describe, expect, it } from 'vitest'
import { chooseFormat, parseBitRate } from '../../lib/cli/formats.js'
import { renderProgress, summaryLine, TextPosition } from '../../lib/cli/progress.js'

const word = (text: string, index: number) => ({ index, text, startMs: 0, endMs: 0 })

describe('the command line\'s progress bar and summary', () => {
  it('draws the share spoken as a bar that fits the terminal', () => {
    const line = renderProgress({ fraction: 0.5, audioSeconds: 12.34, elapsedMs: 1500 }, 80)
    expect(line).toMatch(/^\[=+> +\]  50%  12\.3 s of audio  1\.5 s$/)
    expect(line.length).toBeLessThan(80)
    const bar = /^\[([=> ]+)\]/.exec(line)![1]!
    expect(bar.replace(/ /g, '').length).toBe(bar.length / 2)
    expect(renderProgress({ fraction: 1, audioSeconds: 1, elapsedMs: 0 }, 80)).toMatch(/^\[=+\] 100%/)
    expect(renderProgress({ fraction: 0, audioSeconds: 0, elapsedMs: 0 }, 80)).toMatch(/^\[ +\]   0%/)
  })

  it('drops the bar on a narrow terminal, and the share while the text is still arriving', () => {
    expect(renderProgress({ fraction: 0.25, audioSeconds: 3, elapsedMs: 100 }, 30)).toBe(' 25%  3.0 s of audio  0.1 s')
    expect(renderProgress({ fraction: undefined, audioSeconds: 3, elapsedMs: 100 }, 80)).toBe('3.0 s of audio  0.1 s')
  })

  it('follows the spoken words through the text, past markup and repeated words', () => {
    const position = new TextPosition()
    position.append('Hello <break time="1s"/> hello ')
    position.append('world.')
    expect(position.advance([word('Hello', 0)])).toBe(5)
    expect(position.advance([word('hello', 1)])).toBe('Hello <break time="1s"/> hello'.length)
    expect(position.advance([word('unknown', 2)])).toBe('Hello <break time="1s"/> hello'.length)
    expect(position.advance([word('world', 3)])).toBe(position.length - 1)
    expect(position.hasText).toBe(true)
  })

  it('sums up duration, time, real-time factor and outputs in one line', () => {
    expect(summaryLine({ audioSeconds: 10, wallMs: 500, outputs: ['a.wav 882.0 kB', 'played with aplay'] }))
      .toBe('10.00 s of audio in 0.50 s (real-time factor 0.050): a.wav 882.0 kB, played with aplay')
    expect(summaryLine({ audioSeconds: 0, wallMs: 20, outputs: ['stdout 44 B'] })).toContain('(real-time factor n/a)')
  })

  it('takes the format from --format, else the extension, else WAV on stdout', () => {
    expect(chooseFormat('a.MP3', undefined)).toBe('mp3')
    expect(chooseFormat('a.opus', undefined)).toBe('ogg')
    expect(chooseFormat('a.pcm', undefined)).toBe('raw')
    expect(chooseFormat('-', undefined)).toBe('wav')
    expect(chooseFormat(undefined, undefined)).toBe('wav')
    expect(chooseFormat('a.wav', 'flac')).toBe('flac')
    expect(() => chooseFormat('a.aiff', undefined)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
  })

  it('reads bit rates in bits per second or k, for the lossy formats only', () => {
    expect(parseBitRate('128k', 'mp3')).toBe(128_000)
    expect(parseBitRate('24000', 'ogg')).toBe(24_000)
    expect(parseBitRate(undefined, 'wav')).toBeUndefined()
    expect(() => parseBitRate('fast', 'mp3')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
    expect(() => parseBitRate('96k', 'flac')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }))
  })
})
