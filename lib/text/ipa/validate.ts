/**
 * What the SPEC allows inside <phonemes>: IPA symbols only, with ˈ ˌ ː. Other alphabets are
 * recognised by characters IPA never uses, and rejected with a hint.
 */
import { TtsError } from '../../errors.js'
import type { IpaWord } from '../parser.js'

export function phonemeError(offset: number, message: string): TtsError {
  return new TtsError('INVALID_PHONEMES', `Invalid phonemes at offset ${offset}: ${message}`, { extra: { offset } })
}

/** Characters that mark another alphabet or a wrapper around the IPA, with what they suggest. */
const FOREIGN_CHARACTERS: Array<[RegExp, string]> = [
  [/[/[\](){}]/, 'slashes and brackets are not allowed around or inside the IPA'],
  [/[0-9]/, 'digits are not IPA (ARPABET stress or tone numbers are not supported); use ˈ and ˌ for stress'],
  [/[A-Z]/, 'upper-case ASCII letters are SAMPA, X-SAMPA or ARPABET, not IPA'],
  [/[@"%{}\\&=~`^<>|$*!_;,:'+?-]/, 'ASCII punctuation is SAMPA/X-SAMPA or Kirshenbaum, not IPA (stress is ˈ ˌ, length ː)'],
]

/** Throws INVALID_PHONEMES, naming the first offending character and its offset, for non-IPA content. */
export function assertIpa(word: IpaWord): void {
  let first: { index: number; char: string; hint: string } | null = null
  for (const [pattern, hint] of FOREIGN_CHARACTERS) {
    const match = pattern.exec(word.ipa)
    if (match && (first === null || match.index < first.index)) first = { index: match.index, char: match[0], hint }
  }
  if (first) throw phonemeError(word.start + first.index, `'${first.char}' in '${word.ipa}': ${first.hint}`)
}

/** Describes a symbol for an error message: the character and its code point. */
export function describeSymbol(symbol: string): string {
  const codes = Array.from(symbol, (char) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
  return `'${symbol}' (${codes.join(' ')})`
}
