/**
 * Planning: text → SpeechPlan. Parses the markup, splits it into sentences, collects the source
 * words, turns every segment into units (normalised text, phonemes in the backend's alphabet,
 * breaks) and chunks them, a sentence at a time.
 */
import { abortedError, TtsError } from '../errors.js'
import { clampBreakMs } from './breaks.js'
import { boundSegments, boundText } from './bounds.js'
import { chunkRenderedUnits, type ChunkShape } from './chunker.js'
import { ipaWordToPhonemes } from './ipa/index.js'
import { parseMarkup, parseMarkupPrefix, type AliasSegment, type DigitsSegment, type Segment, type TextSegment } from './parser.js'
import { createReader } from './readers.js'
import { mayEndSentence, splitSentences } from './sentences.js'
import type { Lexicon } from './lexicon.js'
import { isSsml, mayBecomeSsml, parseSsml, type SsmlDocument } from './ssml/document.js'
import type { TokenReader, WordCollector } from './token-reader.js'
import { LANGUAGES, type Chunk, type Language, type PlannedMark, type PlanOptions, type SourceWord, type SpeechPlan } from './types.js'
import type { Unit } from './units.js'

/**
 * Planning a long transcript yields to the event loop after this many milliseconds of work: audio
 * that other streams are waiting for (a new one's first) waits at most this long for the loop.
 */
const PLAN_SLICE_MS = 4
/**
 * A neural pack makes a chunk in one model run: the chunk's first audio waits for all of it, and
 * the run's memory grows with its length (about 20 MB a second of audio for a Piper medium
 * voice). So its chunks group whole clauses up to this many characters (a longer clause stays
 * whole)...
 */
const NEURAL_CLAUSE_CHARS = 80
/** ...and those of the session's first sentence up to this many, so that "Sure, I can do that." speaks "Sure," at once. */
const NEURAL_FIRST_CLAUSE_CHARS = 30
/** Text up to this long is parsed and split at once (well under a slice); longer text waits for a turn first. */
const UNSLICED_CHARS = 4096
/**
 * flite makes no audio before it has analysed its whole utterance, about 0.13 ms a character: a
 * session's first sentence longer than this starts with its first clause (see chunker.ts), so the
 * listener waits for at most about this many characters' analysis where the text allows it.
 */
const FLITE_LEAD_CLAUSE_ABOVE_CHARS = 60

/** How the next sentence is chunked (see chunker.ts); `first`: no chunk has been planned yet. */
function chunkShape(backend: PlanOptions['backend'], first: boolean): ChunkShape {
  if (backend === 'espeak') return { everyClause: true }
  if (backend === 'flite' && first) return { leadClauseAbove: FLITE_LEAD_CLAUSE_ABOVE_CHARS }
  if (backend === 'neural') return { clauseChars: first ? NEURAL_FIRST_CLAUSE_CHARS : NEURAL_CLAUSE_CHARS }
  return {}
}

function checkOptions(transcript: unknown, opts: PlanOptions): void {
  if (typeof transcript !== 'string') throw new TtsError('INVALID_REQUEST', 'transcript must be a string')
  if (!(LANGUAGES as readonly string[]).includes(opts?.language)) {
    throw new TtsError('INVALID_LANGUAGE', `unsupported language '${String(opts?.language)}'; expected one of ${LANGUAGES.join(', ')}`)
  }
  if (opts.backend !== 'espeak' && opts.backend !== 'flite' && opts.backend !== 'neural') {
    throw new TtsError('INVALID_REQUEST', `unknown backend '${String(opts.backend)}'`)
  }
  if (opts.backend === 'flite' && opts.language !== 'en') {
    throw new TtsError('INVALID_LANGUAGE', `the flite backend speaks English only, not '${opts.language}'`)
  }
}

/** A digits tag: each digit group is one source word, read digit by digit, never split by the chunker. */
function digitUnits(segment: DigitsSegment, reader: TokenReader, addWord: WordCollector): Unit[] {
  const units = segment.groups.map((group) => reader.readDigits(group.digits, addWord(group.start, group.end)))
  units.forEach((unit, index) => {
    if (index < units.length - 1) unit.bindNext = true
  })
  return units
}

/** An SSML alias: its text read as the language reads text, all of it one source word (recorded once it speaks), never split. */
function aliasUnits(segment: AliasSegment, reader: TokenReader, language: Language, addWord: WordCollector): Unit[] {
  let word: number | undefined
  const sourceWord: WordCollector = () => (word ??= addWord(segment.start, segment.end))
  const said: TextSegment = { kind: 'text', text: segment.say, start: 0, end: segment.say.length }
  const units = boundText(said, language).flatMap((piece) => reader.readText(piece, sourceWord))
  const speech = units.filter((unit) => unit.kind === 'speech')
  if (speech.length !== units.length || speech.length < 2 || speech.some((unit) => unit.espeakVoice !== speech[0]!.espeakVoice)) {
    units.forEach((unit, index) => {
      if (unit.kind !== 'break' && index < units.length - 1) unit.bindNext = true
    })
    return units
  }
  const { espeakVoice } = speech[0]!
  return [{ kind: 'speech', text: speech.map((unit) => unit.text).join(' '), word: word ?? null, pause: speech[speech.length - 1]!.pause, ...(espeakVoice && { espeakVoice }) }]
}

/** What a segment's units are made with: the reader of its language, and where its words and marks go. */
interface UnitContext {
  opts: PlanOptions
  reader(language: Language): TokenReader
  addWord: WordCollector
  addMark(name: string): void
}

function segmentUnits(segment: Segment, context: UnitContext): Unit[] {
  const language = segment.rendering?.language ?? context.opts.language
  const reader = context.reader(language)
  const { addWord } = context
  switch (segment.kind) {
    case 'text':
      return reader.readText(segment, addWord)
    case 'digits':
      return digitUnits(segment, reader, addWord)
    case 'break':
      return [{ kind: 'break', ms: segment.ms }]
    case 'alias':
      return aliasUnits(segment, reader, language, addWord)
    case 'mark':
      context.addMark(segment.name)
      return []
    case 'phonemes': {
      const shared = segment.oneWord ? addWord(segment.start, segment.end) : undefined
      return segment.words.map((word, index) => ({
        kind: 'phonemes',
        ...ipaWordToPhonemes(word, language, context.opts.backend),
        word: shared ?? addWord(word.start, word.end),
        pause: 'none',
        bindNext: index < segment.words.length - 1,
      }))
    }
  }
}

/** The segment's units, each carrying the segment's SSML rendering. */
function renderedUnits(segment: Segment, context: UnitContext): Unit[] {
  const units = segmentUnits(segment, context)
  const { rendering } = segment
  if (rendering) for (const unit of units) unit.rendering = rendering
  return units
}

/** Consecutive breaks (with only whitespace between them) become one silence of their total length. */
function mergeBreaks(units: Unit[]): Unit[] {
  const merged: Unit[] = []
  for (const unit of units) {
    const previous = merged[merged.length - 1]
    if (unit.kind === 'break' && previous?.kind === 'break' && previous.rendering === unit.rendering) previous.ms = clampBreakMs(previous.ms + unit.ms)
    else merged.push(unit)
  }
  return merged
}

/** What a planner takes besides the plan's options: the pronunciation dictionaries' rules to apply. */
export interface PlannerOptions extends PlanOptions {
  lexicon?: Lexicon
}

/** Planners waiting to go on after a slice of work: one is served each turn of the event loop. */
const waitingPlanners: (() => void)[] = []

function serveNextPlanner(): void {
  waitingPlanners.shift()?.()
  if (waitingPlanners.length > 0) setImmediate(serveNextPlanner)
}

/**
 * Waits for this planner's next turn. However many requests plan at once, the event loop runs
 * one slice of planning a turn, so the audio of other streams (a new one's first) waits at most one.
 */
export function nextPlanningTurn(): Promise<void> {
  return new Promise((resolve) => {
    waitingPlanners.push(resolve)
    if (waitingPlanners.length === 1) setImmediate(serveNextPlanner)
  })
}

/**
 * Slices of planning work: `turn` waits for this planner's next turn, `breathe` does once a slice
 * is used up; both stop once the call is aborted.
 */
function slicer(opts: PlanOptions): { turn(): Promise<void>; breathe(): Promise<void> } {
  let sliceStart = performance.now()
  const turn = async (): Promise<void> => {
    await nextPlanningTurn()
    if (opts.signal?.aborted) throw abortedError(opts.signal)
    sliceStart = performance.now()
  }
  return { turn, breathe: async () => (performance.now() - sliceStart < PLAN_SLICE_MS ? undefined : turn()) }
}

/** A markup or phoneme error found in a later part of a session's text points into the whole text. */
function shiftOffset(error: unknown, base: number): unknown {
  if (base === 0 || !(error instanceof TtsError) || typeof error.extra?.offset !== 'number') return error
  const offset = error.extra.offset + base
  const message = error.message.replace(/at offset \d+/, `at offset ${offset}`)
  return new TtsError(error.code, message, { extra: { ...error.extra, offset }, cause: error.cause })
}

function asTtsError(error: unknown): TtsError {
  if (error instanceof TtsError) return error
  return new TtsError('SYNTHESIS_FAILED', `text processing failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
}

/**
 * Plans text as it is written: `write` appends, `take` plans what is ready. A sentence is ready
 * once the next one has begun, or when it is flushed or the text ends; a tag is never planned
 * before it is closed. Sentences are planned independently (see sentences.ts), so any split of a
 * transcript into writes gives the plan of the whole transcript. Word indices and offsets count
 * from the start of all the text written.
 */
export class SpeechPlanner {
  private pending = ''
  /** Offset of `pending` in all the text written. */
  private base = 0
  private wordCount = 0
  /** Whether a chunk has been planned: the first one is the session's first audio. */
  private chunked = false
  /** End of the text to plan even though its last sentence may be unfinished (a flush), in `pending`. */
  private flushTo = 0
  private ended = false
  /** Whether the last take stopped at its budget, leaving ready text for the next. */
  limited = false
  /** Whether the text is an SSML document; undefined until its start shows it. */
  private ssml: boolean | undefined

  constructor(private readonly opts: PlannerOptions) {
    checkOptions('', opts)
  }

  /** Characters written but not yet planned. */
  get pendingLength(): number {
    return this.pending.length
  }

  write(text: string): void {
    if (typeof text !== 'string') throw new TtsError('INVALID_REQUEST', 'text must be a string')
    this.pending += text
  }

  /** Everything written so far is planned at the next take, except a tag still open. */
  flush(): void {
    this.flushTo = this.pending.length
  }

  /** No more text: the next take plans the rest (and rejects a tag left open). */
  end(): void {
    this.ended = true
  }

  /**
   * Plans what is ready and drops it from the pending text. With a `budget` shorter than the
   * pending text, only the whole sentences within its first `budget` characters are planned (or
   * the first sentence, when it is longer), and `limited` tells that ready text was left for the
   * next take: the first sentences of a long text can be synthesised before the rest is planned.
   */
  async take(budget = Infinity): Promise<SpeechPlan> {
    try {
      const result: SpeechPlan = { words: [], chunks: [] }
      if (this.ended) this.flushTo = this.pending.length
      this.limited = false
      // Within a flush, whole sentences before its end are planned as they would be unflushed.
      const ready = this.flushTo > 0 ? this.flushTo : this.pending.length
      // Each try that plans nothing (one sentence longer than the window) widens it: linear in all.
      for (let window = Math.max(1, budget); window < ready; window *= 4) {
        const planned = this.base
        this.append(result, await this.planPrefix(window, false))
        if (this.base > planned) {
          this.flushTo = Math.max(0, this.flushTo - (this.base - planned))
          this.limited = true
          return result
        }
      }
      if (this.flushTo > 0) this.append(result, await this.planPrefix(this.flushTo, true))
      this.flushTo = 0
      if (!this.ended && this.pending.length > 0) this.append(result, await this.planPrefix(this.pending.length, false))
      return result
    } catch (error) {
      throw asTtsError(shiftOffset(error, this.base))
    }
  }

  private append(into: SpeechPlan, plan: SpeechPlan): void {
    into.words.push(...plan.words)
    into.chunks.push(...plan.chunks)
    if (plan.marks) (into.marks ??= []).push(...plan.marks)
  }

  /** Plans the ready sentences of pending[0, limit); `final`: the last one too, unfinished or not. */
  private async planPrefix(limit: number, final: boolean): Promise<SpeechPlan> {
    // A long transcript is planned in slices, so other requests' work runs in between. Its
    // parsing and sentence split are one piece of work, which waits for a turn like a slice.
    const { turn, breathe } = slicer(this.opts)
    if (limit > UNSLICED_CHARS) await turn()
    const read = await this.readSentences(limit, final, breathe)
    const words: SourceWord[] = []
    const chunks: Chunk[] = []
    const marks: PlannedMark[] = []
    try {
      const { sentences } = read
      if (sentences.length > 0) {
        const readers = await this.readers(sentences.flat())
        const context: UnitContext = {
          opts: this.opts,
          reader: (language) => readers.get(language)!,
          addWord: (start, stop) => {
            words.push({ text: read.wordText(start, stop), start: this.base + read.sourceOffset(start), end: this.base + read.sourceEnd(stop) })
            return this.wordCount + words.length - 1
          },
          addMark: (name) => marks.push({ name, word: this.wordCount + words.length }),
        }
        for (const sentence of sentences) {
          const units: Unit[] = []
          for (const segment of sentence) {
            units.push(...renderedUnits(segment, context))
            await breathe()  // an SSML sentence may hold very many segments
          }
          const sentenceChunks = chunkRenderedUnits(mergeBreaks(units), chunkShape(this.opts.backend, !this.chunked))
          chunks.push(...sentenceChunks)
          if (sentenceChunks.length > 0) this.chunked = true
          await breathe()
        }
      }
    } catch (error) {
      throw inSource(error, read.sourceOffset)
    }
    this.pending = this.pending.slice(read.end)
    this.base += read.end
    this.wordCount += words.length
    return { words, chunks, ...(marks.length > 0 && { marks }) }
  }

  /** The ready sentences of pending[0, limit): the SPEC's markup, or a whole SSML document once it is all there. */
  private async readSentences(limit: number, final: boolean, breathe: () => Promise<void>): Promise<ReadSentences> {
    if (this.ssml === undefined) {
      if (isSsml(this.pending)) this.ssml = true
      else if (mayBecomeSsml(this.pending) && !this.ended) return { sentences: [], end: 0, ...SAME_PLACE }
      else this.ssml = false
    }
    if (this.ssml) {
      // Only the end is looked at: a document written in many small pieces is not scanned whole each time.
      if (!this.ended && !SSML_END.test(this.pending.trimEnd().slice(-SSML_END_CHARS))) return { sentences: [], end: 0, ...SAME_PLACE }
      this.ssml = undefined  // a session may go on with another document
      const options = { language: this.opts.language, languages: this.opts.languages ?? [this.opts.language], unknownElements: this.opts.unknownElements ?? 'error' } as const
      const document = this.pending  // more text may be written while it is parsed
      return this.ssmlSentences(await parseSsml(document, options, breathe), document.length, breathe)
    }
    const text = this.pending.slice(0, limit)
    // Text being written, with no tag and nothing that can end a sentence, has no sentence ready and
    // nothing to refuse: it is not parsed again for each word that is added to it.
    if (!final && !text.includes('<') && !mayEndSentence(text)) return { sentences: [], end: 0, ...SAME_PLACE }
    // Only the whole of the ended text must have every tag closed; a prefix may stop before one.
    const parsed = this.ended && limit === this.pending.length ? { segments: parseMarkup(text), end: text.length } : parseMarkupPrefix(text)
    const split = splitSentences(parsed.segments, this.opts.language, final, parsed.end)
    // Bounds apply within a sentence, so they cut the same places however the text was written.
    return {
      sentences: split.sentences.map((sentence) => boundSegments(this.withLexicon(sentence), this.opts.language)),
      end: split.end,
      wordText: (start, stop) => text.slice(start, stop),
      sourceOffset: (offset) => offset,
      sourceEnd: (offset) => offset,
    }
  }

  private async ssmlSentences(document: SsmlDocument, end: number, breathe: () => Promise<void>): Promise<ReadSentences> {
    const { language } = this.opts
    const sentences: Segment[][] = []
    try {
      for (const group of document.groups) {
        for (const sentence of splitSentences(group, language, true, document.text.length).sentences) sentences.push(boundSegments(this.withLexicon(sentence), language))
        await breathe()
      }
    } catch (error) {
      throw inSource(error, document.sourceOffset)
    }
    return {
      sentences,
      end,
      wordText: (start, stop) => document.text.slice(start, stop),
      sourceOffset: document.sourceOffset,
      sourceEnd: document.sourceEnd,
    }
  }

  /** The sentence with the dictionaries' phrases spoken as they say (after the split: a rule's text never ends a sentence). */
  private withLexicon(sentence: Segment[]): Segment[] {
    return this.opts.lexicon ? this.opts.lexicon.apply(sentence) : sentence
  }

  /** A reader for each language the segments are in (SSML's `<lang>` adds some to the request's). */
  private async readers(segments: Segment[]): Promise<Map<Language, TokenReader>> {
    const byLanguage = new Map<Language, Segment[]>()
    for (const segment of segments) {
      const language = segment.rendering?.language ?? this.opts.language
      const ofLanguage = byLanguage.get(language)
      if (ofLanguage) ofLanguage.push(segment)
      else byLanguage.set(language, [segment])
    }
    const readers = new Map<Language, TokenReader>()
    for (const [language, ofLanguage] of byLanguage) readers.set(language, await createReader({ ...this.opts, language }, ofLanguage))
    return readers
  }
}

/** The root element closed: a session's SSML document is all there. */
const SSML_END = /<\/speak\s*>$/
/** `</speak>` with room for spaces before its `>`. */
const SSML_END_CHARS = 32

/** Sentences ready to plan, where they end in the pending text, and how their offsets name words and map into it. */
interface ReadSentences {
  sentences: Segment[][]
  end: number
  wordText(start: number, stop: number): string
  /** Where a word starting at an offset of the sentences starts in the pending text... */
  sourceOffset(offset: number): number
  /** ...and where one ending at an offset ends. */
  sourceEnd(offset: number): number
}

const SAME_PLACE = { wordText: () => '', sourceOffset: (offset: number) => offset, sourceEnd: (offset: number) => offset }

/** An error found at an offset into an SSML document's text points into the transcript. */
function inSource(error: unknown, sourceOffset: (offset: number) => number): unknown {
  if (!(error instanceof TtsError) || typeof error.extra?.offset !== 'number') return error
  const offset = sourceOffset(error.extra.offset)
  if (offset === error.extra.offset) return error
  const message = error.message.replace(/at offset \d+/, `at offset ${offset}`)
  return new TtsError(error.code, message, { extra: { ...error.extra, offset }, cause: error.cause })
}

/**
 * Plans the speech of a transcript for one language and backend. Every failure is a TtsError:
 * INVALID_MARKUP / INVALID_PHONEMES (400, offset in the message) for the user's input,
 * INVALID_LANGUAGE / INVALID_REQUEST for bad options, SYNTHESIS_FAILED for anything unexpected.
 */
export async function planSpeech(transcript: string, opts: PlannerOptions): Promise<SpeechPlan> {
  checkOptions(transcript, opts)
  const planner = new SpeechPlanner(opts)
  planner.write(transcript)
  planner.end()
  return planner.take()
}
