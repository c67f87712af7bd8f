/**
 * The SPEC's transcript markup: `<phonemes>IPA</phonemes>`, `<break time='…'/>` and
 * `<digits>4 1 5</digits>`. parseMarkup turns a transcript into typed segments that keep their
 * UTF-16 span in the transcript, so every spoken word can be traced back to what the user sent.
 */
import { TtsError } from '../errors.js'
import { parseBreakDuration } from './breaks.js'
import type { Rendering } from './types.js'

/** A stretch of the transcript, as UTF-16 offsets (end exclusive). */
export interface SourceSpan {
  start: number
  end: number
}

/** SSML's voice, language and prosody of a segment; absent outside `<speak>`. */
interface Rendered {
  rendering?: Rendering
}

/**
 * A run of the transcript outside any tag. Control characters and lone surrogates in `text` are
 * replaced by spaces (same length, so offsets hold): the backends and kuromoji cannot read them.
 */
export interface TextSegment extends SourceSpan, Rendered {
  kind: 'text'
  text: string
}

/** One space-separated word of a `<phonemes>` tag's content, still in IPA. */
export interface IpaWord extends SourceSpan {
  ipa: string
}

/** A `<phonemes>` tag; the span covers the tags, each word's span only its own IPA. */
export interface PhonemesSegment extends SourceSpan, Rendered {
  kind: 'phonemes'
  words: IpaWord[]
  /** SSML's `<phoneme ph>`: all the IPA words speak one source word, the element's text (the segment's span). */
  oneWord?: boolean
}

/** A `<break/>` tag, its duration already clamped and rounded. */
export interface BreakSegment extends SourceSpan, Rendered {
  kind: 'break'
  ms: number
}

/** One run of digits inside a `<digits>` tag (a run without spaces stays one word). */
export interface DigitGroup extends SourceSpan {
  digits: string
}

export interface DigitsSegment extends SourceSpan, Rendered {
  kind: 'digits'
  groups: DigitGroup[]
}

/** SSML's `<sub alias>` and `<say-as>`: one source word (the span) spoken as `say`, text to be read. */
export interface AliasSegment extends SourceSpan, Rendered {
  kind: 'alias'
  say: string
}

/** SSML's `<mark name>`: no speech, a named place (an empty span) reported with the words' times. */
export interface MarkSegment extends SourceSpan, Rendered {
  kind: 'mark'
  name: string
}

export type Segment = TextSegment | PhonemesSegment | BreakSegment | DigitsSegment | AliasSegment | MarkSegment

const TAG_NAMES = ['phonemes', 'break', 'digits'] as const
type TagName = (typeof TAG_NAMES)[number]

interface RawTag extends SourceSpan {
  name: string
  closing: boolean
  selfClosing: boolean
  /** Everything between the name and `>` (or `/>`). */
  attributes: string
}

/** `<` or `</` followed by a tag name; anything else after `<` is literal text. */
const TAG_START = /<(\/?)([A-Za-z][A-Za-z0-9_:-]*)/y
const BREAK_ATTRIBUTES = /^\s+time\s*=\s*(?:'([^']*)'|"([^"]*)")\s*$/i  // names are case-insensitive, like tag names
const IPA_WORD = /\S+/g
/** Control characters other than tab and line breaks, and lone surrogates. */
const UNREADABLE = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\p{Cs}]/gu
const DIGIT_GROUP = /\S+/g

export function markupError(offset: number, message: string): TtsError {
  return new TtsError('INVALID_MARKUP', `Invalid markup at offset ${offset}: ${message}`, { extra: { offset } })
}

/** A tag still open where the text ends: an error in a whole transcript, text still to come in a session. */
class OpenAtEnd {
  constructor(
    readonly start: number,
    readonly error: TtsError,
  ) {}
}

function isTagName(name: string): name is TagName {
  return (TAG_NAMES as readonly string[]).includes(name)
}

/**
 * Reads the tag starting at `start` (where transcript[start] is '<'). Returns null when the '<'
 * does not start a tag: not followed by a name, or an unknown name that never reaches a `>`
 * (so "if a<b and b>c" stays text while "<b>" is rejected as an unknown tag).
 */
function readTag(transcript: string, start: number): RawTag | null {
  TAG_START.lastIndex = start
  const head = TAG_START.exec(transcript)
  if (!head) return null
  const name = (head[2] ?? '').toLowerCase()
  const afterName = start + head[0].length
  const next = transcript[afterName]
  const known = isTagName(name)
  // A known name must be followed by a delimiter; "<breakfast" is text.
  if (next !== undefined && !/[\s/>]/.test(next)) return null
  let close = afterName
  while (close < transcript.length && transcript[close] !== '>' && transcript[close] !== '<') close++
  if (transcript[close] !== '>') {
    if (!known) return null
    const error = markupError(start, `unclosed <${head[1]}${name}> tag: missing '>'`)
    throw close === transcript.length ? new OpenAtEnd(start, error) : error
  }
  let attributes = transcript.slice(afterName, close)
  const selfClosing = attributes.endsWith('/')
  if (selfClosing) attributes = attributes.slice(0, -1)
  return { name, closing: head[1] === '/', selfClosing, attributes, start, end: close + 1 }
}

function describe(tag: RawTag): string {
  return `<${tag.closing ? '/' : ''}${tag.name}${tag.selfClosing ? '/' : ''}>`
}

function parseBreak(tag: RawTag): BreakSegment {
  if (tag.closing) throw markupError(tag.start, '</break> is not allowed: break is self-closing, write <break time=\'500ms\'/>')
  if (!tag.selfClosing) throw markupError(tag.start, 'break must be self-closing, write <break time=\'500ms\'/>')
  const attributes = BREAK_ATTRIBUTES.exec(tag.attributes)
  if (!attributes) throw markupError(tag.start, 'break takes exactly one attribute, time, quoted: <break time=\'500ms\'/>')
  const value = attributes[1] ?? attributes[2] ?? ''
  const ms = parseBreakDuration(value)
  if (ms === null) {
    throw markupError(tag.start, `bad break duration '${value}': expected a number followed by ms or s, such as 150ms or 0.5s`)
  }
  return { kind: 'break', ms, start: tag.start, end: tag.end }
}

/** Finds the closing tag of a phonemes or digits tag, rejecting any tag in between. */
function readContent(transcript: string, open: RawTag): { content: string; contentStart: number; close: RawTag } {
  const contentStart = open.end
  let position = contentStart
  for (;;) {
    const lt = transcript.indexOf('<', position)
    if (lt < 0) throw new OpenAtEnd(open.start, markupError(open.start, `unclosed <${open.name}> tag: missing </${open.name}>`))
    const tag = readTag(transcript, lt)
    if (!tag) {
      position = lt + 1
      continue
    }
    if (tag.closing && tag.name === open.name) {
      if (tag.selfClosing || tag.attributes.trim() !== '') throw markupError(tag.start, `malformed closing tag ${describe(tag)}`)
      return { content: transcript.slice(contentStart, lt), contentStart, close: tag }
    }
    if (tag.name === 'break') throw markupError(tag.start, `a break is not allowed inside <${open.name}>`)
    throw markupError(tag.start, `tags cannot be nested: ${describe(tag)} inside <${open.name}>`)
  }
}

function wordsOf(content: string, contentStart: number, pattern: RegExp): SourceSpan[] {
  const words: SourceSpan[] = []
  for (const match of content.matchAll(pattern)) {
    const start = contentStart + match.index
    words.push({ start, end: start + match[0].length })
  }
  return words
}

function parsePhonemes(transcript: string, open: RawTag): { segment: PhonemesSegment; end: number } {
  if (open.selfClosing || open.attributes.trim() !== '') throw markupError(open.start, '<phonemes> takes no attributes and must enclose IPA')
  const { content, contentStart, close } = readContent(transcript, open)
  const words = wordsOf(content, contentStart, IPA_WORD).map(({ start, end }) => ({ start, end, ipa: transcript.slice(start, end) }))
  if (words.length === 0) throw markupError(open.start, '<phonemes> is empty')
  return { segment: { kind: 'phonemes', words, start: open.start, end: close.end }, end: close.end }
}

function parseDigits(transcript: string, open: RawTag): { segment: DigitsSegment; end: number } {
  if (open.selfClosing || open.attributes.trim() !== '') throw markupError(open.start, '<digits> takes no attributes and must enclose digits')
  const { content, contentStart, close } = readContent(transcript, open)
  const groups = wordsOf(content, contentStart, DIGIT_GROUP).map(({ start, end }) => ({ start, end, digits: transcript.slice(start, end) }))
  if (groups.length === 0) throw markupError(open.start, '<digits> is empty')
  for (const group of groups) {
    const bad = /[^0-9]/.exec(group.digits)
    if (bad) throw markupError(group.start + bad.index, `<digits> may only contain the digits 0-9 separated by spaces, found '${bad[0]}'`)
  }
  return { segment: { kind: 'digits', groups, start: open.start, end: close.end }, end: close.end }
}

/**
 * Splits a transcript into text, phonemes, break and digits segments, in order. Throws a TtsError
 * (INVALID_MARKUP) with the offset of the offending tag for anything malformed. Phoneme content
 * is only split into words here; its IPA is checked when it is converted for a backend.
 */
export function parseMarkup(transcript: string): Segment[] {
  try {
    return parseSegments(transcript)
  } catch (error) {
    throw error instanceof OpenAtEnd ? error.error : error
  }
}

/** `<`, `</`, or the start of a known tag's name or attributes, with no `>` yet: the text may still become a tag. */
const TAG_BEING_WRITTEN = /<\/?([A-Za-z]*)(\s[^>]*|\/)?$/

/**
 * Parses the longest prefix of text still being written that holds only complete tags: a tag (or
 * a `<phonemes>`/`<digits>` element) still open at the end waits for more text. Returns the
 * segments and where the prefix ends. Malformed complete markup throws as in parseMarkup.
 */
export function parseMarkupPrefix(text: string): { segments: Segment[]; end: number } {
  let end = text.length
  const lt = text.lastIndexOf('<')
  const writing = lt >= 0 ? TAG_BEING_WRITTEN.exec(text.slice(lt)) : null
  if (writing) {
    const name = (writing[1] ?? '').toLowerCase()
    const maybeTag = writing[2] === undefined ? TAG_NAMES.some((tag) => tag.startsWith(name)) : isTagName(name)
    if (maybeTag) end = lt
  }
  for (;;) {
    try {
      return { segments: parseSegments(text.slice(0, end)), end }
    } catch (error) {
      if (!(error instanceof OpenAtEnd)) throw error
      end = error.start
    }
  }
}

function parseSegments(transcript: string): Segment[] {
  const segments: Segment[] = []
  let textStart = 0
  let position = 0
  const flushText = (end: number): void => {
    if (end > textStart) segments.push({ kind: 'text', text: transcript.slice(textStart, end).replace(UNREADABLE, ' '), start: textStart, end })
  }
  for (;;) {
    const lt = transcript.indexOf('<', position)
    if (lt < 0) break
    const tag = readTag(transcript, lt)
    if (!tag) {
      position = lt + 1
      continue
    }
    if (!isTagName(tag.name)) throw markupError(tag.start, `unknown tag ${describe(tag)}: only <phonemes>, <break/> and <digits> are supported`)
    flushText(lt)
    let parsed: { segment: Segment; end: number }
    if (tag.name === 'break') {
      parsed = { segment: parseBreak(tag), end: tag.end }
    } else if (tag.closing) {
      throw markupError(tag.start, `closing tag ${describe(tag)} without a matching opening tag`)
    } else if (tag.name === 'phonemes') {
      parsed = parsePhonemes(transcript, tag)
    } else {
      parsed = parseDigits(transcript, tag)
    }
    segments.push(parsed.segment)
    textStart = position = parsed.end
  }
  flushText(transcript.length)
  return segments
}
