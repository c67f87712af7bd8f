/**
 * Splits parsed markup into sentences: the engine plans each sentence on its own, so a transcript
 * gets the same plan whether it arrives at once or a word at a time. A sentence ends after a token
 * with sentence punctuation (or a line break); the whitespace and breaks that follow belong to it,
 * and the next sentence starts at the next word or tag. While text is still being written, a
 * sentence is complete only once the next one has started.
 */
import { normaliserFor } from './normalise/index.js'
import type { Segment, TextSegment } from './parser.js'
import { tokenize } from './tokens.js'
import type { Language } from './types.js'

/** A run of sentence punctuation with the closing quotes and brackets after it. */
const SENTENCE_MARKS = new RegExp(`[。．！？….!?]+["'”’»)\\]」』）]*`, 'gu')
const CJK_MARK = new RegExp('[。．！？…]', 'u')
const SPACE = /\s/
const NON_SPACE = /\S/g
/** Every character that may end a sentence in some language (SENTENCE_MARKS, tokens.ts's SENTENCE_END) and the line break. */
const MAY_END_SENTENCE = new RegExp('[\\n.!?。．！？…‼⁇⁈⁉؟।]', 'u')

/** Whether `text` holds anything that can end a sentence: without it, text still being written has no sentence complete. */
export function mayEndSentence(text: string): boolean {
  return MAY_END_SENTENCE.test(text)
}

export interface SentenceSplit {
  sentences: Segment[][]
  /** Where the returned sentences end: the start of the next sentence, or the text's end when it is final. */
  end: number
}

/** Offsets (after the punctuation) where sentences end inside a text segment. */
function sentenceEnds(segment: TextSegment, language: Language): number[] {
  if (language === 'zh' || language === 'ja') {
    // Chinese and Japanese sentences end inside a run of text: at their own punctuation, or at
    // ASCII punctuation before a space (so "3.5" does not end one).
    const ends: number[] = []
    for (const match of segment.text.matchAll(SENTENCE_MARKS)) {
      const end = match.index + match[0].length
      if (CJK_MARK.test(match[0]) || SPACE.test(segment.text[end] ?? '')) ends.push(segment.start + end)
    }
    return ends
  }
  const normaliser = normaliserFor(language)
  return tokenize(segment, (token) => normaliser.isAbbreviation(token))
    .filter((token) => token.pause === 'sentence')
    .map((token) => token.end)
}

function slice(segment: TextSegment, start: number, end: number): TextSegment {
  return { kind: 'text', text: segment.text.slice(start - segment.start, end - segment.start), start, end, ...(segment.rendering && { rendering: segment.rendering }) }
}

/** The segments in order, text cut where sentences end; each marks whether a sentence ends after it. */
function* pieces(segments: Segment[], language: Language): Generator<{ segment: Segment; endsSentence: boolean }> {
  for (const segment of segments) {
    if (segment.kind !== 'text') {
      yield { segment, endsSentence: false }
      continue
    }
    let start = segment.start
    for (const end of sentenceEnds(segment, language)) {
      yield { segment: slice(segment, start, end), endsSentence: true }
      start = end
    }
    if (start < segment.end) yield { segment: slice(segment, start, segment.end), endsSentence: false }
  }
}

/** Whether a segment starts the next sentence (rather than trailing the one that just ended). */
function hasContent(segment: Segment): boolean {
  return segment.kind !== 'break' && segment.kind !== 'mark' && (segment.kind !== 'text' || segment.text.trim() !== '')
}

/**
 * The sentences of `segments`. With `final` the text is complete and every sentence is returned;
 * otherwise the last sentence (still being written) is left out.
 */
export function splitSentences(segments: Segment[], language: Language, final: boolean, textEnd: number): SentenceSplit {
  const sentences: Segment[][] = []
  let current: Segment[] = []
  let ended = false
  let end = 0
  for (const { segment, endsSentence } of pieces(segments, language)) {
    let part = segment
    if (ended && part.kind === 'text' && hasContent(part)) {
      // The whitespace before the next sentence's first word stays with the sentence that ended.
      NON_SPACE.lastIndex = 0
      const first = part.start + NON_SPACE.exec(part.text)!.index
      if (first > part.start) current.push(slice(part, part.start, first))
      part = slice(part, first, part.end)
    }
    if (ended && hasContent(part)) {
      sentences.push(current)
      current = []
      ended = false
      end = part.start
    }
    current.push(part)
    if (endsSentence) ended = true
  }
  if (final) {
    if (current.length > 0) sentences.push(current)
    end = textEnd
  }
  return { sentences: sentences.map((sentence) => sentence.filter(hasContentOrBreak)), end }
}

/** Whitespace-only text speaks nothing; leaving it out keeps sentences the same however the text was split. */
function hasContentOrBreak(segment: Segment): boolean {
  return segment.kind !== 'text' || segment.text.trim() !== ''
}
