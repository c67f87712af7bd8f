/**
 * planSpeech: transcript → SpeechPlan. Parses the markup, collects the source words, turns every
 * segment into units (normalised text, phonemes in the backend's alphabet, breaks) and chunks them.
 */
import { TtsError } from '../errors.js'
import { clampBreakMs } from './breaks.js'
import { boundSegments } from './bounds.js'
import { chunkUnits } from './chunker.js'
import { ipaWordToPhonemes } from './ipa/index.js'
import { parseMarkup, type DigitsSegment, type Segment } from './parser.js'
import { createReader } from './readers.js'
import type { TokenReader, WordCollector } from './token-reader.js'
import { LANGUAGES, type PlanOptions, type SourceWord, type SpeechPlan } from './types.js'
import type { Unit } from './units.js'

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

function collector(words: SourceWord[], transcript: string): WordCollector {
  return (start, end) => words.push({ text: transcript.slice(start, end), start, end }) - 1
}

/** A digits tag: each digit group is one source word, read digit by digit, never split by the chunker. */
function digitUnits(segment: DigitsSegment, reader: TokenReader, addWord: WordCollector): Unit[] {
  const units = segment.groups.map((group) => reader.readDigits(group.digits, addWord(group.start, group.end)))
  units.forEach((unit, index) => {
    if (index < units.length - 1) unit.bindNext = true
  })
  return units
}

function segmentUnits(segment: Segment, reader: TokenReader, opts: PlanOptions, addWord: WordCollector): Unit[] {
  switch (segment.kind) {
    case 'text':
      return reader.readText(segment, addWord)
    case 'digits':
      return digitUnits(segment, reader, addWord)
    case 'break':
      return [{ kind: 'break', ms: segment.ms }]
    case 'phonemes':
      return segment.words.map((word, index) => ({
        kind: 'phonemes',
        ...ipaWordToPhonemes(word, opts.language, opts.backend),
        word: addWord(word.start, word.end),
        pause: 'none',
        bindNext: index < segment.words.length - 1,
      }))
  }
}

/** Consecutive breaks (with only whitespace between them) become one silence of their total length. */
function mergeBreaks(units: Unit[]): Unit[] {
  const merged: Unit[] = []
  for (const unit of units) {
    const previous = merged[merged.length - 1]
    if (unit.kind === 'break' && previous?.kind === 'break') previous.ms = clampBreakMs(previous.ms + unit.ms)
    else merged.push(unit)
  }
  return merged
}

async function plan(transcript: string, opts: PlanOptions): Promise<SpeechPlan> {
  checkOptions(transcript, opts)
  const segments = boundSegments(parseMarkup(transcript), opts.language)
  const reader = await createReader(opts, segments)
  const words: SourceWord[] = []
  const addWord = collector(words, transcript)
  const units = segments.flatMap((segment) => segmentUnits(segment, reader, opts, addWord))
  return { words, chunks: chunkUnits(mergeBreaks(units)) }
}

/**
 * Plans the speech of a transcript for one language and backend. Every failure is a TtsError:
 * INVALID_MARKUP / INVALID_PHONEMES (400, offset in the message) for the user's input,
 * INVALID_LANGUAGE / INVALID_REQUEST for bad options, SYNTHESIS_FAILED for anything unexpected.
 */
export async function planSpeech(transcript: string, opts: PlanOptions): Promise<SpeechPlan> {
  try {
    return await plan(transcript, opts)
  } catch (error) {
    if (error instanceof TtsError) throw error
    throw new TtsError('SYNTHESIS_FAILED', `text processing failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}
