/**
 * Chinese: Hanzi become pinyin with tone digits (pinyin-pro, which gets polyphones and 一/不
 * sandhi right) read by espeak-ng's `cmn-latn-pinyin` voice, because its `cmn` voice is broken in
 * 1.51 and reads Hanzi with wrong polyphones (NATIVE.md). Each Hanzi is a source word (one
 * syllable each); a Latin word inside Chinese is one word read by the English voice, not spelled.
 */
import { createRequire } from 'node:module'
import { cjkPunctuation, CJK_RUNS } from './cjk.js'
import { normaliserFor } from './normalise/index.js'
import type { TextSegment } from './parser.js'
import type { TokenReader, WordCollector } from './token-reader.js'
import type { SpeechUnit, Unit } from './units.js'

// Loaded on the first Chinese text: its dictionaries would cost every program's start-up.
const require = createRequire(import.meta.url)
let pinyinPro: typeof import('pinyin-pro') | undefined

export const PINYIN_VOICE = 'cmn-latn-pinyin'
export const LATIN_VOICE = 'en'

/** Tone-numbered pinyin for a run of Hanzi, one syllable per character. */
export function toPinyin(hanzi: string): string[] {
  pinyinPro ??= require('pinyin-pro') as typeof import('pinyin-pro')
  return pinyinPro.pinyin(hanzi, { toneType: 'num', type: 'array', v: true })
}

/** The pinyin voice reads digits as Chinese numbers but drops a decimal point; it is read as 点 (dian3). */
function numberAsPinyin(number: string): string {
  return number.replace(/,(?=\d{3})/g, '').replace(/[.,]/g, ' dian3 ')
}

const english = normaliserFor('en')

function speech(text: string, word: number | null, espeakVoice: string): SpeechUnit {
  return { kind: 'speech', text, word, espeakVoice, pause: 'none' }
}

export const chineseReader: TokenReader = {
  readText(segment: TextSegment, addWord: WordCollector): Unit[] {
    const units: SpeechUnit[] = []
    for (const match of segment.text.matchAll(CJK_RUNS)) {
      const start = segment.start + match.index
      const [, hanzi, number, other, , single] = match
      if (hanzi !== undefined) {
        const syllables = toPinyin(hanzi)
        let offset = start
        Array.from(hanzi).forEach((char, index) => {
          units.push(speech(syllables[index] ?? char, addWord(offset, offset + char.length), PINYIN_VOICE))
          offset += char.length
        })
      } else if (number !== undefined) {
        units.push(speech(numberAsPinyin(number), addWord(start, start + number.length), PINYIN_VOICE))
      } else if (other !== undefined) {
        units.push(speech(english.normaliseToken(other), addWord(start, start + other.length), LATIN_VOICE))
      } else if (single !== undefined) {
        const punctuation = cjkPunctuation(single)
        const previous = units[units.length - 1]
        if (punctuation && previous) {
          previous.text += punctuation[0]
          if (punctuation[1] === 'sentence' || previous.pause === 'none') previous.pause = punctuation[1]
        }
      }
    }
    return units
  },
  readDigits(digits, word) {
    return speech(Array.from(digits).join(' '), word, PINYIN_VOICE)
  },
}
