/**
 * What one request may ask of the backends, decided before any native call. The backends (and
 * kuromoji) slow down more than linearly, or crash, on a very long word, a long run of symbols
 * or an oversized phoneme word; these bounds keep every piece they get small. Text is only cut
 * into more segments or blanked with spaces, never shifted, so offsets still point into the
 * transcript. docs/errors-and-limits.md documents every number here.
 */
import { TtsError } from '../errors.js'
import { phonemeError } from './ipa/validate.js'
import type { DigitsSegment, PhonemesSegment, Segment, TextSegment } from './parser.js'
import type { Language, SpeechPlan } from './types.js'

/** Characters without a space read as one word; a longer run (a hash, a pasted blob) is read in pieces this long. */
export const MAX_WORD_CHARS = 64
/** UTF-8 bytes of a run without a space that the backends read (native/ refuses more: espeak-ng overflows at 168). */
export const MAX_WORD_BYTES = 128
/** Chinese and Japanese need no spaces: a run is cut after its last punctuation mark within this many characters, or at it. */
export const MAX_CJK_RUN_CHARS = 128
/** Text between tags is handed to a reader (kuromoji for Japanese) in pieces of at most this many characters, cut at a space. */
export const MAX_TEXT_PIECE_CHARS = 1024
/** Of a run of punctuation, symbols, emoji or combining marks, only this many are read; the rest is silent. */
export const MAX_MARK_RUN = 8
/** The SPEC asks to keep a phonemes tag to one or two words. */
export const MAX_PHONEME_WORDS = 2
/** Symbols in one IPA word (the longest English words are about 45). */
export const MAX_PHONEME_WORD_SYMBOLS = 64
/** Digits in one group of a digits tag; a longer group is read in groups of this many. */
export const MAX_DIGIT_GROUP_DIGITS = 32
/** Groups of a digits tag kept in one phrase (never cut between chunks); a longer tag is read in phrases of this many. */
export const MAX_DIGIT_GROUPS_PER_PHRASE = 24
/** Default longest audio of one request, breaks included, in seconds. */
export const DEFAULT_MAX_AUDIO_SECONDS = 1800
/** The speaking rate of the estimate, in characters of normalised text a second at speed 1 (measured 16-19 for English, 11 for Japanese kana). */
const ESTIMATED_CHARS_PER_SECOND = 15

/** A run of more than MAX_MARK_RUN marks (a literal, so that the ReDoS lint sees it). */
const MARK_RUN = /[\p{P}\p{S}\p{M}\p{Cf}]{9,}/gu
/** The characters of JavaScript's \s, by code (a regex test per character is the slow part of a 100 000-character transcript). */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13)
  if (code < 160) return false
  return code === 160 || code === 5760 || (code >= 8192 && code <= 8202) || code === 8232 || code === 8233 || code === 8239 || code === 8287 || code === 12288 || code === 65279
}
const PUNCTUATION = /\p{P}/u

/** Keeps the first MAX_MARK_RUN code points of each long mark run and blanks the rest (same length). */
function blankMarkRuns(text: string): string {
  return text.replace(MARK_RUN, (run) => {
    const kept = Array.from(run).slice(0, MAX_MARK_RUN).join('')
    return kept + ' '.repeat(run.length - kept.length)
  })
}

/** UTF-8 bytes of one UTF-16 unit (a surrogate pair's four bytes counted two a unit). */
function utf8Bytes(code: number): number {
  if (code < 0x80) return 1
  if (code < 0x800 || (code >= 0xd800 && code <= 0xdfff)) return 2
  return 3
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index)
  return code >= 0xdc00 && code <= 0xdfff
}

/**
 * Where a text is cut: inside a run without spaces longer than `maxRun` (after its last
 * punctuation mark for CJK, else at the bound, never inside a surrogate pair), and at a space
 * when a piece grows past MAX_TEXT_PIECE_CHARS. One pass, linear.
 */
function cutPoints(text: string, maxRun: number, cjk: boolean): number[] {
  const cuts: number[] = []
  let pieceStart = 0
  let runStart = 0
  let runBytes = 0  // UTF-8 bytes of text[runStart, i]; only bounded outside Chinese and Japanese, whose runs the readers respell
  let lastSpaceEnd = -1
  let lastMarkEnd = -1
  for (let i = 0; i < text.length; i++) {
    if (i + 1 - pieceStart > MAX_TEXT_PIECE_CHARS && lastSpaceEnd > pieceStart) {
      cuts.push(lastSpaceEnd)
      pieceStart = lastSpaceEnd
    }
    runBytes += utf8Bytes(text.charCodeAt(i))
    if (isSpace(text.charCodeAt(i))) {
      runStart = lastSpaceEnd = i + 1
      runBytes = 0
    } else if (i + 1 - runStart > maxRun || (!cjk && runBytes > MAX_WORD_BYTES)) {
      let cut = cjk && lastMarkEnd > runStart ? lastMarkEnd : i
      if (cut === i && isLowSurrogate(text, i) && i - 1 > runStart) cut = i - 1
      cuts.push(cut)
      runStart = pieceStart = cut
      runBytes = 0
      for (let j = cut; j <= i; j++) runBytes += utf8Bytes(text.charCodeAt(j))
    }
    if (cjk && PUNCTUATION.test(text[i]!)) lastMarkEnd = i + 1
  }
  return cuts
}

/**
 * Blanks a full stop on either side of each cut. The pieces of a cut run are read with a space
 * between them, and espeak-ng joins dotted letters across a space ("a.b. c.d." is one word to it):
 * three 64-character pieces of "a.a.a..." made one 192-byte word, and it aborted the process.
 */
function blankStopsAtCuts(text: string, cuts: number[]): string {
  const chars = text.split('')
  for (const cut of cuts) {
    if (chars[cut - 1] === '.') chars[cut - 1] = ' '
    if (chars[cut] === '.') chars[cut] = ' '
  }
  return chars.join('')
}

export function boundText(segment: TextSegment, language: Language): TextSegment[] {
  const cjk = language === 'zh' || language === 'ja'
  if (segment.text.length <= MAX_MARK_RUN) return [segment]  // nothing in it can be over a bound
  const marksBlanked = blankMarkRuns(segment.text)
  const cuts = cutPoints(marksBlanked, cjk ? MAX_CJK_RUN_CHARS : MAX_WORD_CHARS, cjk)
  const text = cuts.length > 0 ? blankStopsAtCuts(marksBlanked, cuts) : marksBlanked
  const pieces: TextSegment[] = []
  let from = 0
  for (const cut of [...cuts, text.length]) {
    if (cut > from) {
      pieces.push({ kind: 'text', text: text.slice(from, cut), start: segment.start + from, end: segment.start + cut, ...(segment.rendering && { rendering: segment.rendering }) })
    }
    from = cut
  }
  return pieces
}

function checkPhonemes(segment: PhonemesSegment): PhonemesSegment {
  if (segment.words.length > MAX_PHONEME_WORDS) {
    const extra = segment.words[MAX_PHONEME_WORDS]!
    throw phonemeError(extra.start, `a phonemes tag holds at most ${MAX_PHONEME_WORDS} words (it has ${segment.words.length}); use one tag per word or two`)
  }
  for (const word of segment.words) {
    const symbols = Array.from(word.ipa).length
    if (symbols > MAX_PHONEME_WORD_SYMBOLS) {
      throw phonemeError(word.start, `an IPA word has at most ${MAX_PHONEME_WORD_SYMBOLS} symbols (this one has ${symbols})`)
    }
  }
  return segment
}

/** Long groups are read in groups of MAX_DIGIT_GROUP_DIGITS, and a long tag in phrases the chunker may cut between. */
function boundDigits(segment: DigitsSegment): DigitsSegment[] {
  const groups = segment.groups.flatMap((group) => {
    const parts = []
    for (let from = 0; from < group.digits.length; from += MAX_DIGIT_GROUP_DIGITS) {
      const digits = group.digits.slice(from, from + MAX_DIGIT_GROUP_DIGITS)
      parts.push({ digits, start: group.start + from, end: group.start + from + digits.length })
    }
    return parts
  })
  const phrases: DigitsSegment[] = []
  for (let from = 0; from < groups.length; from += MAX_DIGIT_GROUPS_PER_PHRASE) {
    const phrase = groups.slice(from, from + MAX_DIGIT_GROUPS_PER_PHRASE)
    phrases.push({
      kind: 'digits',
      groups: phrase,
      start: from === 0 ? segment.start : phrase[0]!.start,
      end: from + MAX_DIGIT_GROUPS_PER_PHRASE >= groups.length ? segment.end : phrase[phrase.length - 1]!.end,
      ...(segment.rendering && { rendering: segment.rendering }),
    })
  }
  return phrases
}

/** Applies the bounds to parsed markup: cuts long text and digit runs, blanks long symbol runs, refuses oversized phoneme tags. */
export function boundSegments(segments: Segment[], language: Language): Segment[] {
  return segments.flatMap((segment): Segment[] => {
    switch (segment.kind) {
      case 'text':
        return boundText(segment, language)
      case 'phonemes':
        return [checkPhonemes(segment)]
      case 'digits':
        return boundDigits(segment)
      case 'break':
      case 'alias':  // its spoken text is bounded as it is read
      case 'mark':
        return [segment]
    }
  })
}

/** Whether a plan speaks anything: a word, or a break (silence asked for explicitly). */
function speaks(plan: SpeechPlan): boolean {
  for (const chunk of plan.chunks) {
    for (const piece of chunk.pieces) {
      if (piece.kind === 'break' ? piece.ms > 0 : piece.kind === 'phonemes' || piece.spans.length > 0) return true
    }
  }
  return false
}

/** A rough length of the plan's audio: its breaks, and its text at a typical speaking rate. */
function estimateAudioSeconds(plan: SpeechPlan, speed: number): number {
  let breakMs = 0
  let chars = 0
  for (const piece of plan.chunks.flatMap((chunk) => chunk.pieces)) {
    if (piece.kind === 'break') breakMs += piece.ms
    else chars += piece.kind === 'text' ? piece.text.length : piece.phonemes.length
  }
  return breakMs / 1000 + chars / ESTIMATED_CHARS_PER_SECOND / speed
}

/**
 * Checks a request's plan as it is planned, a part at a time, so that synthesis can start before
 * the rest is planned: AUDIO_TOO_LONG as soon as the estimated audio of the parts so far exceeds
 * `maxAudioSeconds`, and NO_SPEECH at the end when no part said anything (no word, no break).
 */
export class SpeechPlanCheck {
  private seconds = 0
  /** Whether a part so far speaks: until one does, nothing need be synthesised. */
  speaks = false

  constructor(private readonly limits: { maxAudioSeconds: number; speed: number }) {}

  add(plan: SpeechPlan): void {
    this.speaks ||= speaks(plan)
    this.seconds += estimateAudioSeconds(plan, this.limits.speed)
    if (this.seconds > this.limits.maxAudioSeconds) {
      const seconds = Math.round(this.seconds)
      throw new TtsError('AUDIO_TOO_LONG', `the transcript would make at least ${seconds} s of audio; the limit is ${this.limits.maxAudioSeconds} s a request`, {
        extra: { estimated_seconds: seconds, max_seconds: this.limits.maxAudioSeconds },
      })
    }
  }

  /** The whole plan has been added. */
  finish(): void {
    if (!this.speaks) throw new TtsError('NO_SPEECH', 'the transcript has nothing to speak: no word that the voice can read, and no break')
  }
}

/** Refuses a whole plan before synthesis: NO_SPEECH when it would say nothing, AUDIO_TOO_LONG when its estimated audio is over the limit. */
export function checkSpeechPlan(plan: SpeechPlan, limits: { maxAudioSeconds: number; speed: number }): void {
  const check = new SpeechPlanCheck(limits)
  check.add(plan)
  check.finish()
}
