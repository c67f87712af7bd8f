/**
 * Per-language text normalisation: what a token such as "$3.50" or "12." is spoken as.
 */
import type { Language } from '../types.js'

export interface Normaliser {
  /** Whether a token ending in '.' is an abbreviation (so the period does not end a sentence). */
  isAbbreviation(token: string): boolean
  /** The spoken form of one whitespace-separated token, punctuation kept. */
  normaliseToken(token: string): string
  /** How a lone digit is read inside a digits tag. */
  speakDigit(digit: string): string
}

export function normaliserFor(_language: Language): Normaliser {
  return {
    isAbbreviation: () => false,
    normaliseToken: (token) => token,
    speakDigit: (digit) => digit,
  }
}
