/**
 * SSML 1.1 documents (a transcript whose root is `<speak>`) read into the plan's segments. The
 * XML is parsed by saxes: no DTD (a DOCTYPE is refused, so no entity can be declared), no entity
 * but the five predefined ones and character references, nothing fetched. Every element maps
 * onto what the plan already speaks: text, breaks, phonemes, digits, an alias (text spoken in a
 * word's place), and a rendering (voice, language, rate, pitch, volume) on each segment.
 *
 * The segments point into the document's text (its character data, entities decoded), which
 * names the words in the timestamps; `sourceOffset` maps a place in it back into the transcript
 * for error positions.
 */
import { createRequire } from 'node:module'
import type { SaxesTagPlain } from 'saxes'
import { TtsError } from '../../errors.js'
import { parseBreakDuration } from '../breaks.js'
import { markupError, type Segment, type SourceSpan } from '../parser.js'
import { LANGUAGES, type Language, type Rendering } from '../types.js'
import { INTERPRETATIONS, sayAs, type Interpretation } from './say-as.js'
import { breakStrengthMs, emphasisRendering, pitchFactor, rateFactor, volumeFactor } from './values.js'

// Loaded on the first SSML document, not at every program's start-up.
const require = createRequire(import.meta.url)
let saxes: typeof import('saxes') | undefined

/** Elements nested deeper than this are refused: no document needs it, and each level is state held. */
export const MAX_SSML_DEPTH = 32
/** Distinct renderings (voice, language and prosody together) in one document: each is a native stream. */
export const MAX_SSML_RENDERINGS = 16
/** Characters parsed between two chances for other work to run (a few milliseconds of saxes). */
const PARSE_SLICE_CHARS = 8192
/**
 * Segments of one `<s>` or `<p>` (or of the text between them) planned together: a longer run is
 * planned in parts of this many, a sentence boundary between them, so no part of the planning
 * holds the event loop for long.
 */
export const MAX_SSML_GROUP_SEGMENTS = 512
/** Characters of an attribute value that becomes speech (an alias) or a name (a mark, a voice). */
export const MAX_SSML_ATTRIBUTE_CHARS = 1024

const SSML_START = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<speak[\s/>]|<!DOCTYPE\s)/
/** Whether the transcript is an SSML document (its root element is `<speak>`, maybe after an XML declaration; a DOCTYPE is refused as SSML's). */
export function isSsml(text: string): boolean {
  return SSML_START.test(text)
}

/** Whether text written so far may still turn out to be SSML (it is blank, or a start of `<speak`, `<!DOCTYPE` or `<?xml…`). */
export function mayBecomeSsml(text: string): boolean {
  let rest = text.trimStart()
  if (rest.length > 256) return false
  if ('<?xml'.startsWith(rest)) return true
  if (rest.startsWith('<?xml')) {
    const declarationEnd = rest.indexOf('?>')
    if (declarationEnd < 0) return true
    rest = rest.slice(declarationEnd + 2).trimStart()
  }
  return '<speak'.startsWith(rest) || '<!DOCTYPE'.startsWith(rest)
}

export interface SsmlDocument {
  /** The document's character data, as the words are named; segments point into it. */
  text: string
  /** The document's `<s>` and `<p>` sentences (and the text between them), in order. */
  groups: Segment[][]
  /** The place in the transcript of an offset into `text` (where a word starting there starts). */
  sourceOffset(offset: number): number
  /** Where a word ending at an offset into `text` ends in the transcript. */
  sourceEnd(offset: number): number
}

export interface SsmlOptions {
  language: Language
  /** The languages `<lang>` may switch to. */
  languages: readonly Language[]
  unknownElements: 'error' | 'text'
}

/** An element whose content is only text, read as a whole when it closes. */
interface TextOnly {
  tag: SaxesTagPlain
  start: number
  text: string
}

interface Frame {
  name: string
  rendering: Rendering | undefined
  textOnly?: TextOnly
  /** `<break>` and `<mark>` hold nothing. */
  empty?: boolean
}

/**
 * A place where `text` and the transcript line up: from `at` on one for one (`linear`), or as a
 * whole (an entity, an element read as its alias) spanning source..sourceEnd.
 */
interface Anchor {
  at: number
  source: number
  linear: boolean
  sourceEnd: number
}

/** `&amp;`, `&#233;`, `&#x1F600;`: how many UTF-16 units the reference stands for. */
function referenceLength(reference: string): number {
  const numeric = /^&#(x?)([0-9a-f]+);$/i.exec(reference)
  return numeric ? String.fromCodePoint(parseInt(numeric[2]!, numeric[1] ? 16 : 10)).length : 1
}

/** Where character data and its source differ in length: a reference, a line end that XML turns into '\n'. */
const SPECIAL = /[&\r]/g
const KNOWN = new Set(['speak', 'p', 's', 'break', 'prosody', 'emphasis', 'say-as', 'sub', 'phoneme', 'lang', 'voice', 'mark'])

function required(tag: SaxesTagPlain, start: number, name: string): string {
  const value = tag.attributes[name]
  if (value === undefined || value.trim() === '') throw markupError(start, `<${tag.name}> needs a ${name} attribute`)
  if (value.length > MAX_SSML_ATTRIBUTE_CHARS) throw markupError(start, `<${tag.name}>'s ${name} is longer than ${MAX_SSML_ATTRIBUTE_CHARS} characters`)
  return value
}

function languageOf(tag: SaxesTagPlain, start: number, opts: SsmlOptions): Language {
  const value = required(tag, start, 'xml:lang')
  const primary = value.trim().split(/[-_]/)[0]!.toLowerCase()
  const language = primary === 'cmn' ? 'zh' : primary
  if (!(LANGUAGES as readonly string[]).includes(language) || !opts.languages.includes(language as Language)) {
    throw new TtsError('INVALID_LANGUAGE', `Invalid language at offset ${start}: xml:lang '${value}' is not one of ${opts.languages.join(', ')}`, {
      extra: { offset: start },
    })
  }
  return language as Language
}

function factor(tag: SaxesTagPlain, start: number, name: string, read: (value: string) => number | null): number | undefined {
  const value = tag.attributes[name]
  if (value === undefined) return undefined
  const result = read(value)
  if (result === null) throw markupError(start, `<${tag.name}> cannot read ${name}='${value}'`)
  return result
}

/** A rendering inside another: prosody factors multiply, voice and language replace. */
function combine(outer: Rendering | undefined, inner: Rendering): Rendering {
  const result: Rendering = { ...outer }
  if (inner.voice !== undefined) result.voice = inner.voice
  if (inner.language !== undefined) result.language = inner.language
  for (const key of ['rate', 'pitch', 'volume'] as const) {
    if (inner[key] !== undefined) result[key] = (result[key] ?? 1) * inner[key]
  }
  return result
}

class DocumentReader {
  private text = ''
  private readonly anchors: Anchor[] = [{ at: 0, source: 0, linear: false, sourceEnd: 0 }]
  private readonly groups: Segment[][] = []
  private group: Segment[] = []
  private readonly stack: Frame[] = []
  private readonly renderings = new Map<string, Rendering>()
  /** Where in the transcript the parser was after the last event: character data starts there. */
  private cursor = 0
  private tagStart = 0
  private readonly parser = new (saxes ??= require('saxes') as typeof import('saxes')).SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true })

  constructor(
    private readonly transcript: string,
    private readonly opts: SsmlOptions,
  ) {}

  async read(breathe: () => Promise<void>): Promise<SsmlDocument> {
    const { parser } = this
    parser.on('error', (error) => {
      // Where the parser noticed; a tag it refused as a whole (ended by '>') is named by its start.
      const at = Math.max(0, Math.min(parser.position - 1, this.transcript.length - 1))
      let offset = this.transcript[at] === '>' ? Math.max(0, this.transcript.lastIndexOf('<', at)) : at
      // saxes finds text after the root only where it ends: name where it begins.
      if (/outside of root/.test(error.message)) offset = this.cursor + Math.max(0, this.transcript.slice(this.cursor).search(/\S/))
      throw markupError(offset, `${error.message.replace(/^\d+:\d+: /, '')} (line ${parser.line}, column ${parser.column})`)
    })
    parser.on('doctype', () => {
      throw markupError(this.transcript.indexOf('<!'), 'a DOCTYPE is not allowed in SSML (no DTD, no entities but the five predefined)')
    })
    parser.on('opentagstart', () => {
      this.tagStart = Math.max(0, this.transcript.lastIndexOf('<', parser.position - 1))
    })
    parser.on('opentag', (tag) => {
      this.open(tag)
      this.cursor = parser.position
    })
    parser.on('closetag', (tag) => {
      this.close(tag)
      this.cursor = parser.position
    })
    parser.on('text', (data) => this.characters(data))
    parser.on('cdata', (data) => this.characters(data))
    for (const event of ['comment', 'processinginstruction', 'xmldecl'] as const) parser.on(event, () => (this.cursor = parser.position))
    // A long document is parsed a slice at a time, other work running in between.
    for (let from = 0; from < this.transcript.length; from += PARSE_SLICE_CHARS) {
      parser.write(this.transcript.slice(from, from + PARSE_SLICE_CHARS))
      await breathe()
    }
    parser.close()
    this.endGroup()
    const { text, anchors } = this
    return { text, groups: this.groups, sourceOffset: (offset) => sourceStart(anchors, offset), sourceEnd: (offset) => sourceEnd(anchors, offset) }
  }

  private get current(): Frame | undefined {
    return this.stack[this.stack.length - 1]
  }

  private intern(rendering: Rendering): Rendering | undefined {
    if (rendering.language === this.opts.language) delete rendering.language
    for (const key of ['rate', 'pitch', 'volume'] as const) if (rendering[key] === 1) delete rendering[key]
    if (Object.keys(rendering).length === 0) return undefined
    const key = JSON.stringify(['voice', 'language', 'rate', 'pitch', 'volume'].map((k) => rendering[k as keyof Rendering]))
    const known = this.renderings.get(key)
    if (known) return known
    if (this.renderings.size >= MAX_SSML_RENDERINGS) {
      throw markupError(this.tagStart, `a document may hold at most ${MAX_SSML_RENDERINGS} different voices, languages and prosodies`)
    }
    this.renderings.set(key, rendering)
    return rendering
  }

  /** `segment` is made for this call, so it takes the open elements' rendering itself. */
  private push(segment: Segment): void {
    const rendering = this.current?.rendering
    if (rendering) segment.rendering = rendering
    this.group.push(segment)
    if (this.group.length >= MAX_SSML_GROUP_SEGMENTS) this.endGroup()
  }

  private endGroup(): void {
    if (this.group.length > 0) this.groups.push(this.group)
    this.group = []
  }

  /** Appends text that stands as a whole for source[source, sourceEnd). */
  private append(text: string, source: number, sourceEnd: number): SourceSpan {
    const start = this.text.length
    this.anchors.push({ at: start, source, linear: false, sourceEnd })
    this.text += text
    return { start, end: this.text.length }
  }

  /** Appends character data found at `source`, lined up with the transcript around its references and line ends. */
  private appendData(data: string, source: number): SourceSpan {
    const start = this.text.length
    const rawEnd = this.transcript.indexOf('<', source)
    const raw = this.transcript.slice(source, rawEnd < 0 ? this.transcript.length : rawEnd)
    let r = 0
    let d = start
    while (r < raw.length) {
      SPECIAL.lastIndex = r
      const special = SPECIAL.exec(raw)?.index
      const plain = special === undefined ? raw.length - r : special - r
      if (plain > 0) {
        this.anchors.push({ at: d, source: source + r, linear: true, sourceEnd: source + r + plain })
        r += plain
        d += plain
        continue
      }
      const length = raw[r] === '&' ? raw.indexOf(';', r) + 1 - r : raw[r + 1] === '\n' ? 2 : 1
      this.anchors.push({ at: d, source: source + r, linear: false, sourceEnd: source + r + length })
      d += raw[r] === '&' ? referenceLength(raw.slice(r, r + length)) : 1
      r += length
    }
    this.text += data
    return { start, end: this.text.length }
  }

  private characters(data: string): void {
    const start = this.cursor
    const frame = this.current
    if (frame?.textOnly) {
      frame.textOnly.text += data
      return
    }
    if (frame?.empty && data.trim() !== '') throw markupError(start, `<${frame.name}> must be empty`)
    if (!frame) return  // whitespace around the root: saxes refuses anything else
    const span = this.transcript.startsWith('<![CDATA[', start) ? this.append(data, start, this.parser.position) : this.appendData(data, start)
    this.push({ kind: 'text', text: data, ...span })
  }

  private open(tag: SaxesTagPlain): void {
    const start = this.tagStart
    const parent = this.current
    const name = tag.name
    if (this.stack.length >= MAX_SSML_DEPTH) throw markupError(start, `elements are nested more than ${MAX_SSML_DEPTH} deep`)
    if (parent?.textOnly || parent?.empty) throw markupError(start, `<${parent.name}> holds only text, not <${name}>`)
    if (!parent && name !== 'speak') throw markupError(start, `the root element must be <speak>, not <${name}>`)
    if (parent && name === 'speak') throw markupError(start, '<speak> is the root element only')
    if (!KNOWN.has(name)) {
      if (this.opts.unknownElements === 'error') {
        throw markupError(start, `unknown element <${name}>: SSML here takes ${[...KNOWN].map((k) => `<${k}>`).join(', ')}`)
      }
      this.stack.push({ name, rendering: parent?.rendering })
      return
    }
    const frame: Frame = { name, rendering: parent?.rendering }
    this.stack.push(frame)
    switch (name) {
      case 'speak':
        if (tag.attributes['xml:lang'] !== undefined) frame.rendering = this.intern({ language: languageOf(tag, start, this.opts) })
        break
      case 'p':
      case 's':
        this.endGroup()
        if (tag.attributes['xml:lang'] !== undefined) frame.rendering = this.intern(combine(frame.rendering, { language: languageOf(tag, start, this.opts) }))
        break
      case 'lang':
        frame.rendering = this.intern(combine(frame.rendering, { language: languageOf(tag, start, this.opts) }))
        break
      case 'voice':
        frame.rendering = this.intern(combine(frame.rendering, { voice: required(tag, start, 'name').trim() }))
        break
      case 'prosody': {
        const prosody: Rendering = {}
        const rate = factor(tag, start, 'rate', rateFactor)
        const pitch = factor(tag, start, 'pitch', pitchFactor)
        const volume = factor(tag, start, 'volume', volumeFactor)
        if (rate !== undefined) prosody.rate = rate
        if (pitch !== undefined) prosody.pitch = pitch
        if (volume !== undefined) prosody.volume = volume
        frame.rendering = this.intern(combine(frame.rendering, prosody))
        break
      }
      case 'emphasis': {
        const level = tag.attributes.level ?? 'moderate'
        const emphasis = emphasisRendering(level)
        if (!emphasis) throw markupError(start, `<emphasis> level '${level}' is not strong, moderate, none or reduced`)
        frame.rendering = this.intern(combine(frame.rendering, emphasis))
        break
      }
      case 'break':
        frame.empty = true
        this.push({ kind: 'break', ms: this.breakMs(tag, start), start: this.text.length, end: this.text.length })
        break
      case 'mark':
        frame.empty = true
        this.push({ kind: 'mark', name: required(tag, start, 'name'), start: this.text.length, end: this.text.length })
        break
      default:  // sub, say-as, phoneme: read when they close
        frame.textOnly = { tag, start, text: '' }
    }
  }

  private breakMs(tag: SaxesTagPlain, start: number): number {
    const { time, strength } = tag.attributes
    if (time !== undefined) {
      const ms = parseBreakDuration(time)
      if (ms === null) throw markupError(start, `bad break time '${time}': expected a number followed by ms or s, such as 150ms or 0.5s`)
      return ms
    }
    if (strength === undefined) return breakStrengthMs('medium')!
    const ms = breakStrengthMs(strength)
    if (ms === null) throw markupError(start, `bad break strength '${strength}': expected none, x-weak, weak, medium, strong or x-strong`)
    return ms
  }

  private close(tag: SaxesTagPlain): void {
    const frame = this.stack.pop()!
    if (frame.textOnly) this.closeTextOnly(frame.textOnly)
    if (tag.name === 'p' || tag.name === 's') this.endGroup()
  }

  /** A `<sub>`, `<say-as>` or `<phoneme>`: its text is one word spoken as the element says. */
  private closeTextOnly({ tag, start, text }: TextOnly): void {
    const language = this.current?.rendering?.language ?? this.opts.language
    const named = (fallback: string): SourceSpan => this.append(text.trim() === '' ? fallback : text.trim(), start, this.parser.position)
    switch (tag.name) {
      case 'sub': {
        const say = required(tag, start, 'alias')
        this.push({ kind: 'alias', say, ...named(say) })
        return
      }
      case 'phoneme': {
        const alphabet = tag.attributes.alphabet ?? 'ipa'
        if (alphabet.toLowerCase() !== 'ipa') {
          throw new TtsError('INVALID_PHONEMES', `Invalid phonemes at offset ${start}: alphabet '${alphabet}' is not supported; use alphabet="ipa"`, {
            extra: { offset: start },
          })
        }
        const ph = required(tag, start, 'ph')
        const span = named(ph)
        const words = ph.trim().split(/\s+/).map((ipa) => ({ ipa, ...span }))
        this.push({ kind: 'phonemes', words, oneWord: true, ...span })
        return
      }
      default: {
        const interpretation = required(tag, start, 'interpret-as').toLowerCase()
        if (!(INTERPRETATIONS as readonly string[]).includes(interpretation)) {
          throw markupError(start, `<say-as> interpret-as '${interpretation}' is not one of ${INTERPRETATIONS.join(', ')}`)
        }
        const read = sayAs(interpretation as Interpretation, text, tag.attributes.format ?? '', language)
        if (!read) throw markupError(start, `<say-as> cannot read '${text.trim()}' as ${interpretation}${tag.attributes.format ? ` in format ${tag.attributes.format}` : ''}`)
        const span = named(text)
        if (read.kind === 'text') this.push({ kind: 'text', text: this.text.slice(span.start, span.end), ...span })
        else if (read.kind === 'alias') this.push({ kind: 'alias', say: read.say, ...span })
        else this.push({ kind: 'digits', groups: [{ digits: read.digits, ...span }], ...span })
      }
    }
  }
}

/** The last anchor at or before `offset` (`before`: strictly before it). */
function anchorAt(anchors: readonly Anchor[], offset: number, before: boolean): Anchor {
  let low = 0
  let high = anchors.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    const at = anchors[middle]!.at
    if (before ? at < offset : at <= offset) low = middle
    else high = middle - 1
  }
  return anchors[low]!
}

/** Where a word starting at `offset` of the text starts in the transcript. */
function sourceStart(anchors: readonly Anchor[], offset: number): number {
  const anchor = anchorAt(anchors, offset, false)
  return anchor.linear ? anchor.source + (offset - anchor.at) : anchor.source
}

/** Where a word ending at `offset` of the text ends in the transcript. */
function sourceEnd(anchors: readonly Anchor[], offset: number): number {
  const anchor = anchorAt(anchors, offset, true)
  return anchor.linear ? anchor.source + (offset - anchor.at) : anchor.sourceEnd
}

/**
 * Reads an SSML document, calling `breathe` between slices of it. Throws INVALID_MARKUP
 * (malformed XML, an unknown element, a bad attribute), INVALID_LANGUAGE or INVALID_PHONEMES,
 * each with the offset in the transcript.
 */
export function parseSsml(transcript: string, opts: SsmlOptions, breathe: () => Promise<void> = async () => {}): Promise<SsmlDocument> {
  return new DocumentReader(transcript, opts).read(breathe)
}
