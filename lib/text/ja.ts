/**
 * Japanese: espeak-ng's ja voice reads kana only (kanji come out as "Chinese letter"), so every
 * token gets its reading from kuromoji's `pronunciation` field (katakana with は→ワ and long
 * vowels applied). Each kuromoji token is a source word; kana words are separated by spaces,
 * which gives espeak word-level grouping. Latin words are read by the English voice.
 */
import { cjkPunctuation, CJK_RUNS } from './cjk.js'
import type { KuromojiToken } from './kuromoji-worker.js'
import { normaliserFor } from './normalise/index.js'
import type { TextSegment } from './parser.js'
import type { TokenReader, WordCollector } from './token-reader.js'
import type { SpeechUnit, Unit } from './units.js'

const LATIN_VOICE = 'en'

const english = normaliserFor('en')
const NUMBER = /^\d+(?:[.,]\d+)*$/
const KANA_OR_KANJI = new RegExp('[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー]', 'u')

/** espeak's ja voice reads digits but drops a decimal point; it is read as テン. */
function numberAsKana(number: string): string {
  return number.replace(/,(?=\d{3})/g, '').replace(/[.,]/g, ' テン ')
}

function speech(text: string, word: number | null, espeakVoice?: string): SpeechUnit {
  return { kind: 'speech', text, word, pause: 'none', ...(espeakVoice ? { espeakVoice } : {}) }
}

/** Words without a kuromoji reading (Latin, digits, symbols), split the same way as in Chinese. */
function readUnknown(surface: string, start: number, addWord: WordCollector, units: SpeechUnit[]): void {
  for (const match of surface.matchAll(CJK_RUNS)) {
    const [whole, , number, other, space] = match
    const offset = start + match.index
    if (space !== undefined) continue
    if (number !== undefined) units.push(speech(numberAsKana(number), addWord(offset, offset + number.length)))
    else if (other !== undefined) units.push(speech(english.normaliseToken(other), addWord(offset, offset + other.length), LATIN_VOICE))
    else {
      const punctuation = cjkPunctuation(whole)
      const previous = units[units.length - 1]
      if (punctuation && previous) {
        previous.text += punctuation[0]
        if (punctuation[1] === 'sentence' || previous.pause === 'none') previous.pause = punctuation[1]
      }
    }
  }
}

/** kuromoji splits "3.5" into 3 . 5; a decimal or grouped number is one word. */
function mergeNumbers(tokens: KuromojiToken[]): KuromojiToken[] {
  const merged: KuromojiToken[] = []
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!
    const previous = merged[merged.length - 1]
    const next = tokens[index + 1]
    if (previous && next && /^[.,]$/.test(token.surface_form) && /\d$/.test(previous.surface_form) && /^\d+$/.test(next.surface_form)) {
      merged[merged.length - 1] = { surface_form: previous.surface_form + token.surface_form + next.surface_form, word_position: previous.word_position }
      index++
    } else {
      merged.push(token)
    }
  }
  return merged
}

/** A reader over texts kuromoji has already tokenized (off the main thread): `tokens.get(text)`. */
export function japaneseReader(tokens: Map<string, KuromojiToken[]>): TokenReader {
  return {
    readText(segment: TextSegment, addWord: WordCollector): Unit[] {
      const units: SpeechUnit[] = []
      for (const token of mergeNumbers(tokens.get(segment.text) ?? [])) {
        const start = segment.start + token.word_position - 1
        const surface = token.surface_form
        const reading = token.pronunciation
        if (reading && reading !== '*' && KANA_OR_KANJI.test(surface)) {
          units.push(speech(reading, addWord(start, start + surface.length)))
        } else if (!NUMBER.test(surface) && KANA_OR_KANJI.test(surface)) {
          // Kana kuromoji does not know are read as written.
          units.push(speech(surface, addWord(start, start + surface.length)))
        } else {
          readUnknown(surface, start, addWord, units)
        }
      }
      return units
    },
    readDigits(digits, word) {
      return speech(Array.from(digits).join(' '), word)
    },
  }
}
