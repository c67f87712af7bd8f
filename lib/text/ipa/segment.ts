/**
 * Splits an IPA word into phones by longest match against an inventory, keeping stress marks.
 * Shared by the espeak and flite converters, which differ only in their inventories.
 */
import type { IpaWord } from '../parser.js'
import { describeSymbol, phonemeError } from './validate.js'

export type IpaToken = { kind: 'stress'; primary: boolean } | { kind: 'phone'; ipa: string; output: string }

/** Marks that carry nothing a backend can use: syllable break, linking, tie bars, half-long, extra-short. */
const IGNORED = new Set(['.', '‿', '\u0361', '\u035c', 'ˑ', '\u0306'])

export class IpaInventory {
  private readonly phones = new Map<string, string>()
  private longest = 0

  /** `phones` maps IPA (any Unicode form) to the backend's symbol; of two spellings that are equal in NFD, the first wins. */
  constructor(phones: Record<string, string>) {
    for (const [ipa, output] of Object.entries(phones)) {
      const key = ipa.normalize('NFD')
      if (!this.phones.has(key)) this.phones.set(key, output)
      this.longest = Math.max(this.longest, key.length)
    }
  }

  /** The longest phone starting at `position`, as [ipa, output], or null. */
  match(text: string, position: number): [string, string] | null {
    for (let length = Math.min(this.longest, text.length - position); length > 0; length--) {
      const candidate = text.slice(position, position + length)
      const output = this.phones.get(candidate)
      if (output !== undefined) return [candidate, output]
    }
    return null
  }
}

/**
 * Tokenises one IPA word (already checked by assertIpa). `language` names the target in errors.
 * Throws INVALID_PHONEMES naming the first symbol the inventory cannot voice.
 */
export function segmentIpa(word: IpaWord, inventory: IpaInventory, language: string): IpaToken[] {
  const text = word.ipa.normalize('NFD')
  const tokens: IpaToken[] = []
  let position = 0
  while (position < text.length) {
    const char = text[position]!
    if (char === 'ˈ' || char === 'ˌ') {
      tokens.push({ kind: 'stress', primary: char === 'ˈ' })
      position++
      continue
    }
    if (IGNORED.has(char)) {
      position++
      continue
    }
    const match = inventory.match(text, position)
    if (!match) {
      const symbol = String.fromCodePoint(text.codePointAt(position)!)
      throw phonemeError(word.start, `the IPA symbol ${describeSymbol(symbol)} in '${word.ipa}' cannot be spoken in ${language}`)
    }
    tokens.push({ kind: 'phone', ipa: match[0], output: match[1] })
    position += match[0].length
  }
  if (!tokens.some((token) => token.kind === 'phone')) throw phonemeError(word.start, `'${word.ipa}' has no phones`)
  return tokens
}
