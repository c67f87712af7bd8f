import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { ipaWordToPhonemes } from '../../lib/text/index.js'
import { ESPEAK_INVENTORY } from '../../lib/text/ipa/espeak-inventory.js'
import { LANGUAGES, type Language } from '../../lib/text/types.js'

const word = (ipa: string) => ({ ipa, start: 7, end: 7 + ipa.length })
const espeak = (ipa: string, language: Language) => ipaWordToPhonemes(word(ipa), language, 'espeak')
const flite = (ipa: string) => ipaWordToPhonemes(word(ipa), 'en', 'flite').phonemes

function phonemeError(convert: () => unknown): TtsError {
  try {
    convert()
  } catch (error) {
    expect(error).toBeInstanceOf(TtsError)
    return error as TtsError
  }
  throw new Error('no error')
}

describe('IPA → espeak-ng mnemonics', () => {
  it.each([
    ['en', 'həˈloʊ', "h|@'l|oU"],
    ['en', 'ˈθɪŋkɪŋ', "'T|I|N|k|I|N"],
    ['en', 'ˈwɔːtə', "'w|O:|t|@"],
    ['fr', 'bɔ̃ʒuʁ', 'b|O~|Z|u|r'],
    ['de', 'ˈʃøːn', "'S|Y:|n"],
    ['es', 'ˈpeɾo', "'p|e|r|o"],
    ['es', 'ˈbaso', "'b|a|s|o"],
    ['it', 'ˈkaza', "'k|a|z|a"],
    ['pt', 'ˈoʒɨ', "'o|Z|y"],
    ['ru', 'dʲɛtʲ', 'd;|E|t;'],
    ['ar', 'salaːm', 's|a|l|a:|m'],
    ['ro', 'ˈapə', "'a|p|@"],
    ['ja', 'kʲoː', 'k;|o:'],
    ['he', 'ʃalom', 'S|a|l|o|m'],
    ['hy', 'barev', 'b|a|R|e|v'],
    ['tr', 'ɟyzæl', 'J|y|z|&|l'],
    ['hi', 'nəmsteː', 'n|@|m|s|t|e:'],
    ['zh', 'ma˨˩˦', 'm|a214'],
  ] as const)('%s: %s → %s', (language, ipa, mnemonics) => {
    expect(espeak(ipa, language).phonemes).toBe(mnemonics)
  })

  it('marks Mandarin phonemes for the pinyin voice', () => {
    expect(espeak('ma˥', 'zh')).toEqual({ phonemes: 'm|a55', espeakVoice: 'cmn-latn-pinyin' })
    expect(espeak('ma', 'en')).toEqual({ phonemes: 'm|a' })
  })

  it('accepts NFC and NFD spellings of the same symbol', () => {
    expect(espeak('bɔ̃'.normalize('NFC'), 'fr').phonemes).toBe(espeak('bɔ̃'.normalize('NFD'), 'fr').phonemes)
  })

  it('has an inventory for every language with its vowels and consonants', () => {
    for (const language of LANGUAGES) {
      const phones = Object.keys(ESPEAK_INVENTORY[language] ?? {})
      expect(phones.length, language).toBeGreaterThan(40)
      for (const phone of ['m', 'n', 'p', 't', 'k', 's', 'i']) expect(phones, `${language} ${phone}`).toContain(phone)
    }
  })

  it('names a symbol the language cannot voice', () => {
    const error = phonemeError(() => espeak('ʕajn', 'en'))
    expect(error.code).toBe('INVALID_PHONEMES')
    expect(error.message).toContain("'ʕ' (U+0295)")
    expect(error.message).toContain('en')
    expect(error.message).toContain('offset 7')
  })

  it.each([
    ['/həˈloʊ/', "'/'"],
    ['[həˈloʊ]', "'['"],
    ['HH', "'H'"],
    ['hh0', "'0'"],
    ['h@"loU', "'@'"],
    ["h@l'oU", "'@'"],
    ['he:', "':'"],
  ])('rejects the non-IPA %s', (ipa, symbol) => {
    const error = phonemeError(() => espeak(ipa, 'en'))
    expect(error.code).toBe('INVALID_PHONEMES')
    expect(error.message).toContain(symbol)
  })
})

describe('IPA → flite phones', () => {
  it.each([
    ['həˈloʊ', 'hh ax0 l ow1'],
    ['ˈwɔːtɚ', 'w ao1 t er0'],
    ['ˈbʌtəɹ', 'b ah1 t er0'],
    ['kæt', 'k ae1 t'],
    ['ˈbɒtl̩', 'b aa1 t ax0 l'],
    ['ˌʌndəˈstænd', 'ah1 n d ax0 s t ae1 n d'],
    ['ˈdʒʌdʒ', 'jh ah1 jh'],
  ])('%s → %s', (ipa, phones) => {
    expect(flite(ipa)).toBe(phones)
  })

  it('rejects a symbol English does not have', () => {
    expect(phonemeError(() => flite('ʁu')).message).toContain("'ʁ' (U+0281)")
  })
})
