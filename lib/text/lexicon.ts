/**
 * Pronunciation dictionaries applied to text: each rule is a word or phrase, spoken as IPA (as
 * `<phonemes>` takes it) or as an alias (a respelling read in its place). Rules match whole words,
 * case-insensitively unless a rule says otherwise, the longest phrase first; a matched phrase is
 * one source word, named as written. Matching is a map lookup per word, so a dictionary's size
 * costs nothing per sentence.
 */
import type { AliasSegment, PhonemesSegment, Segment, TextSegment } from './parser.js'

export type LexiconRule = { text: string; caseSensitive?: boolean } & ({ phonemes: string } | { alias: string })

interface CompiledRule {
  words: string[]
  rule: LexiconRule
}

interface Word {
  /** The word without the punctuation around it, as matched. */
  core: string
  start: number
  end: number
  /** Punctuation after the word: a phrase does not run on past it. */
  closed: boolean
}

const WORD = /\S+/g
const PUNCTUATION = /[\p{P}\p{S}]/u

function splitWords(text: string): string[] {
  return text.trim().split(/\s+/).filter((word) => word !== '')
}

function wordsOf(segment: TextSegment): Word[] {
  const words: Word[] = []
  for (const match of segment.text.matchAll(WORD)) {
    const token = match[0]
    let lead = 0
    let tail = token.length
    while (lead < tail && PUNCTUATION.test(token[lead]!)) lead++
    while (tail > lead && PUNCTUATION.test(token[tail - 1]!)) tail--
    if (lead === tail) continue
    const start = segment.start + match.index + lead
    words.push({ core: token.slice(lead, tail), start, end: start + tail - lead, closed: tail < token.length })
  }
  return words
}

export class Lexicon {
  /** Rules by their first word, lower-cased; each list longest phrase first, earlier rules first among equals. */
  private readonly byFirstWord = new Map<string, CompiledRule[]>()

  /** Rules given earlier win over later ones for the same phrase. */
  constructor(rules: readonly LexiconRule[]) {
    for (const rule of rules) {
      const words = splitWords(rule.text)
      if (words.length === 0) continue
      const key = words[0]!.toLowerCase()
      const list = this.byFirstWord.get(key) ?? []
      list.push({ words, rule })
      this.byFirstWord.set(key, list)
    }
    for (const list of this.byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length)
  }

  get size(): number {
    return this.byFirstWord.size
  }

  /** The segments with every phrase a rule matches in their text spoken as the rule says. */
  apply(segments: Segment[]): Segment[] {
    return segments.flatMap((segment) => (segment.kind === 'text' ? this.applyToText(segment) : [segment]))
  }

  private applyToText(segment: TextSegment): Segment[] {
    const words = wordsOf(segment)
    const out: Segment[] = []
    let textFrom = segment.start
    const rendering = segment.rendering && { rendering: segment.rendering }
    for (let i = 0; i < words.length; ) {
      const match = this.match(words, i)
      if (!match) {
        i++
        continue
      }
      const start = words[i]!.start
      const end = words[i + match.words.length - 1]!.end
      if (start > textFrom) out.push({ kind: 'text', text: segment.text.slice(textFrom - segment.start, start - segment.start), start: textFrom, end: start, ...rendering })
      out.push(replacement(match.rule, start, end, rendering))
      textFrom = end
      i += match.words.length
    }
    if (textFrom === segment.start) return [segment]
    if (textFrom < segment.end) out.push({ kind: 'text', text: segment.text.slice(textFrom - segment.start), start: textFrom, end: segment.end, ...rendering })
    return out
  }

  private match(words: Word[], at: number): CompiledRule | undefined {
    const candidates = this.byFirstWord.get(words[at]!.core.toLowerCase())
    if (!candidates) return undefined
    return candidates.find(({ words: phrase, rule }) => {
      if (at + phrase.length > words.length) return false
      return phrase.every((expected, k) => {
        const word = words[at + k]!
        if (k < phrase.length - 1 && word.closed) return false
        return rule.caseSensitive ? word.core === expected : word.core.toLowerCase() === expected.toLowerCase()
      })
    })
  }
}

function replacement(rule: LexiconRule, start: number, end: number, rendering: Pick<Segment, 'rendering'> | undefined): AliasSegment | PhonemesSegment {
  if ('alias' in rule) return { kind: 'alias', say: rule.alias, start, end, ...rendering }
  const words = splitWords(rule.phonemes).map((ipa) => ({ ipa, start, end }))
  return { kind: 'phonemes', words, oneWord: true, start, end, ...rendering }
}
