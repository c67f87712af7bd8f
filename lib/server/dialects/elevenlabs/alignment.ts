/**
 * ElevenLabs' character alignment from the engine's word times. Each word found in the text (in
 * order, from where the previous one ended) spreads its time evenly over its characters; the
 * characters between two words (spaces, punctuation, markup) spread over the gap between them.
 * Words the text does not hold as written fall into the gap. The characters joined are the text,
 * and every time lies between 0 and the last word's end, inside the audio.
 */
import type { Alignment, TimedWord } from '../../../engine/alignment.js'

/** The SPEC's word alignment (three arrays) as timed words. */
export function timedWords(alignment: Alignment): TimedWord[] {
  return alignment.words.map((text, index) => ({ index, text, startMs: alignment.word_start_times_milliseconds[index]!, endMs: alignment.word_end_times_milliseconds[index]! }))
}

/** A stretch of characters and their times, in ms. */
export interface CharTimes {
  chars: string[]
  startsMs: number[]
  endsMs: number[]
}

function spread(into: CharTimes, text: string, startMs: number, endMs: number): void {
  const chars = Array.from(text)
  const step = chars.length > 0 ? Math.max(0, endMs - startMs) / chars.length : 0
  chars.forEach((char, i) => {
    into.chars.push(char)
    into.startsMs.push(startMs + i * step)
    into.endsMs.push(startMs + (i + 1) * step)
  })
}

/** Aligns a text piece by piece, as its words' times come (a stream's chunks); `finish` gives the rest of the text. */
export class CharacterAligner {
  private cursor = 0
  private lastEndMs = 0

  constructor(private readonly text: string) {}

  /** The characters up to the end of the last of `words` found in the text. */
  next(words: readonly TimedWord[]): CharTimes {
    const out: CharTimes = { chars: [], startsMs: [], endsMs: [] }
    for (const word of words) {
      const at = word.text ? this.text.indexOf(word.text, this.cursor) : -1
      if (at < 0) continue
      const startMs = Math.max(word.startMs, this.lastEndMs)
      const endMs = Math.max(word.endMs, startMs)
      spread(out, this.text.slice(this.cursor, at), this.lastEndMs, startMs)
      spread(out, word.text, startMs, endMs)
      this.cursor = at + word.text.length
      this.lastEndMs = endMs
    }
    return out
  }

  /** The characters after the last word, at the end of the audio. */
  finish(): CharTimes {
    const out: CharTimes = { chars: [], startsMs: [], endsMs: [] }
    spread(out, this.text.slice(this.cursor), this.lastEndMs, this.lastEndMs)
    this.cursor = this.text.length
    return out
  }
}

/** The whole text aligned with its words. */
export function alignText(text: string, words: readonly TimedWord[]): CharTimes {
  const aligner = new CharacterAligner(text)
  const found = aligner.next(words)
  const rest = aligner.finish()
  return { chars: [...found.chars, ...rest.chars], startsMs: [...found.startsMs, ...rest.startsMs], endsMs: [...found.endsMs, ...rest.endsMs] }
}

/** ElevenLabs' normalized text: the words as spoken, joined by single spaces, aligned as they come (each space takes the gap). */
export class SpokenAligner {
  private started = false
  private lastEndMs = 0

  next(words: readonly TimedWord[]): CharTimes {
    const out: CharTimes = { chars: [], startsMs: [], endsMs: [] }
    for (const word of words) {
      const startMs = Math.max(word.startMs, this.lastEndMs)
      const endMs = Math.max(word.endMs, startMs)
      if (this.started) spread(out, ' ', this.lastEndMs, startMs)
      spread(out, word.text, startMs, endMs)
      this.started = true
      this.lastEndMs = endMs
    }
    return out
  }
}

// Floored, so that no time passes the end of the audio.
const seconds = (ms: number) => Math.floor(ms) / 1000

/** The HTTP shape: `{characters, character_start_times_seconds, character_end_times_seconds}`. */
export function httpAlignment(times: CharTimes) {
  return { characters: times.chars, character_start_times_seconds: times.startsMs.map(seconds), character_end_times_seconds: times.endsMs.map(seconds) }
}

/** The WebSocket shape: `{chars, charStartTimesMs, charDurationsMs}`. */
export function socketAlignment(times: CharTimes) {
  return {
    chars: times.chars,
    charStartTimesMs: times.startsMs.map(Math.floor),
    charDurationsMs: times.endsMs.map((end, i) => Math.max(0, Math.floor(end) - Math.floor(times.startsMs[i]!))),
  }
}
