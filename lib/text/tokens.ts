/**
 * Splits the text between tags into whitespace-separated tokens that keep their transcript span,
 * and reads the prosodic boundary each token's trailing punctuation implies.
 */
import type { TextSegment } from './parser.js'
import type { Pause } from './units.js'

export interface Token {
  text: string
  /** UTF-16 offsets into the transcript. */
  start: number
  end: number
  pause: Pause
}

const TOKEN = /\S+/g
const WHITESPACE = /\s*/y
/** A sentence or clause mark, then closing quotes and brackets, at the token's end. */
const SENTENCE_END = new RegExp(`[.!?。！？…‼⁇⁈⁉؟।]["'”’»)\\]」』）]*$`, 'u')
const CLAUSE_END = new RegExp(`[,;:，、；：،؛]["'”’»)\\]」』）]*$`, 'u')
const DASH = new RegExp('^[-–—]+$')
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

/** Whether a token is spoken at all (rather than punctuation such as "—" or "..."). */
export function hasSpeakableChars(text: string): boolean {
  return LETTER_OR_DIGIT.test(text)
}

/** The boundary a token's own trailing punctuation marks, ignoring abbreviations. */
export function pauseAfter(text: string): Pause {
  if (SENTENCE_END.test(text)) return 'sentence'
  if (CLAUSE_END.test(text) || DASH.test(text)) return 'clause'
  return 'none'
}

/**
 * Tokens of a text segment. `isAbbreviation` tells a final period that belongs to a word
 * ("Dr.", "z.B.") from one that ends a sentence. A line break after a token ends a sentence too.
 */
export function tokenize(segment: TextSegment, isAbbreviation: (token: string) => boolean): Token[] {
  const tokens: Token[] = []
  for (const match of segment.text.matchAll(TOKEN)) {
    const text = match[0]
    const local = match.index
    let pause = pauseAfter(text)
    if (pause === 'sentence' && text.endsWith('.') && isAbbreviation(text)) pause = 'none'
    WHITESPACE.lastIndex = local + text.length
    const following = WHITESPACE.exec(segment.text)?.[0] ?? ''
    if (following.includes('\n') && local + text.length + following.length < segment.text.length) pause = 'sentence'
    tokens.push({ text, start: segment.start + local, end: segment.start + local + text.length, pause })
  }
  return tokens
}
