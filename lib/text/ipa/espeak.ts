/**
 * IPA → espeak-ng phoneme mnemonics (the ASCII alphabet read inside [[ ]]), per language.
 * The phones come from espeak-ng's own tables (espeak-inventory.ts, generated); the aliases below
 * accept the symbols people commonly write for a phone espeak-ng writes differently.
 */
import type { Language } from '../types.js'
import { ESPEAK_INVENTORY } from './espeak-inventory.js'
import { IpaInventory, segmentIpa, type IpaToken } from './segment.js'
import { phonemeError } from './validate.js'
import type { IpaWord } from '../parser.js'

/** Accepted spellings, per language, of phones espeak-ng's voice writes another way. */
const ALIASES: Partial<Record<Language, Record<string, string>>> = {
  // The en voice is British: American diphthongs and r-coloured vowels map to its nearest phones.
  en: { r: 'r', oʊ: 'oU', ɚ: '3', ɝ: '3:', ɜ: '3:', ɑ: 'A:', ɾ: 't', ʔ: 't' },
  // espeak-ng writes intervocalic b d g as β ð ɣ; the plain letters are still its phonemes.
  es: { b: 'b', d: 'd', g: 'g', ɡ: 'g' },
  ja: { a: 'a', e: 'e', o: 'o', u: 'u', ɯ: 'u', ɾ: 'r' },
  // espeak-ng writes the retroflexes as "ts.", "ts.h", "s." and "z." in its own IPA output.
  zh: { ʈʂ: 'ts.', ʈʂʰ: 'ts.h', ʂ: 's.', 'ts.': 'ts.', 'ts.h': 'ts.h', 's.': 's.', 'z.': 'z.', tsʰ: 'tsh', tɕʰ: 'tS;h', pʰ: 'ph', tʰ: 'th', kʰ: 'kh', ɻ: 'z.' },
}

/** Fallbacks for every language: length (':' lengthens the phone before it), palatalisation, ASCII g. */
const MODIFIERS: Record<string, string> = { ː: ':', ʲ: ';', g: 'g', ɡ: 'g' }

/** Chao tone letters, read by the Mandarin voice as its tone numbers (˥˩ → 51). */
const TONE_LETTERS: Record<string, string> = { '˥': '5', '˦': '4', '˧': '3', '˨': '2', '˩': '1' }

function toneAliases(): Record<string, string> {
  // A single letter is a level tone: ˥ is 55.
  const tones: Record<string, string> = Object.fromEntries(Object.entries(TONE_LETTERS).map(([letter, digit]) => [letter, digit + digit]))
  for (const contour of ['55', '35', '214', '51', '21', '11', '53', '44', '33', '22']) {
    const letters = Array.from(contour, (digit) => Object.keys(TONE_LETTERS).find((letter) => TONE_LETTERS[letter] === digit)!).join('')
    tones[letters] = contour
  }
  return tones
}

const inventories = new Map<Language, IpaInventory>()

function inventoryFor(language: Language): IpaInventory {
  let inventory = inventories.get(language)
  if (!inventory) {
    inventory = new IpaInventory({
      ...MODIFIERS,
      ...(language === 'zh' ? toneAliases() : {}),
      ...ESPEAK_INVENTORY[language],
      ...ALIASES[language],
    })
    inventories.set(language, inventory)
  }
  return inventory
}

/**
 * One IPA word as espeak mnemonics. Phones are separated by '|' so that espeak reads them as
 * written ("t|S" is t then ʃ, "tS" would be the affricate).
 */
export function ipaToEspeak(word: IpaWord, language: Language): string {
  const tokens: IpaToken[] = segmentIpa(word, inventoryFor(language), `espeak-ng's ${language} voice`)
  let mnemonics = ''
  let previousWasPhone = false
  for (const token of tokens) {
    if (token.kind === 'stress') {
      mnemonics += token.primary ? "'" : ','
      previousWasPhone = false
      continue
    }
    const modifier = token.output === ':' || token.output === ';' || /^\d+$/.test(token.output)
    if (modifier && !previousWasPhone) throw phonemeError(word.start, `'${token.ipa}' in '${word.ipa}' must follow the phone it modifies`)
    if (previousWasPhone && !modifier) mnemonics += '|'
    mnemonics += token.output
    previousWasPhone = true
  }
  return mnemonics
}
