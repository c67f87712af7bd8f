/**
 * Text that arrives in pieces, cut into sentences as each completes, by the engine's own rule
 * (lib/text/sentences.ts): a sentence is complete once the next one has begun. Each sentence is
 * then spoken as its own start/stop, as wyoming-piper does with its sentence boundary detector.
 */
import { TtsError } from '../../errors.js'
import { parseMarkupPrefix } from '../../text/parser.js'
import { splitSentences } from '../../text/sentences.js'
import type { Language } from '../../text/types.js'

/** What may end a sentence: text without one of these holds no complete sentence, so it is not parsed again. */
const MAY_END = new RegExp('[。．！？….!?\\n]', 'u')

export class SentenceCutter {
  private pending = ''

  constructor(
    private readonly language: Language,
    /** Longest text waiting for its sentence to end, in UTF-16 characters. */
    private readonly maxPendingChars: number,
    /** Keep the text whole until its end: an SSML document is not read before it is complete. */
    private readonly whole = false,
  ) {}

  /** Appends `text`; returns the sentences it completes, each with the whitespace after it (none when whole). */
  write(text: string): string[] {
    this.pending += text
    const sentences = this.whole || !MAY_END.test(this.pending) ? [] : this.complete()
    if (this.pending.length > this.maxPendingChars) {
      throw new TtsError('TRANSCRIPT_TOO_LONG', `more than ${this.maxPendingChars} characters are waiting for a sentence to end`)
    }
    return sentences
  }

  /** The complete sentences of the pending text, taken from it. */
  private complete(): string[] {
    const prefix = parseMarkupPrefix(this.pending)
    const split = splitSentences(prefix.segments, this.language, false, prefix.end)
    if (split.end === 0) return []
    const starts = [0, ...split.sentences.slice(1).map((sentence) => sentence[0]?.start ?? split.end), split.end]
    const sentences = starts.slice(0, -1).map((start, index) => this.pending.slice(start, starts[index + 1]))
    this.pending = this.pending.slice(split.end)
    return sentences.filter((sentence) => sentence.trim() !== '')
  }

  /** The text of the last sentence, once no more comes. */
  end(): string {
    const rest = this.pending
    this.pending = ''
    return rest
  }
}
