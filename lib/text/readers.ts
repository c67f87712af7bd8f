/**
 * A reader turns the text of one language into speech units: it finds the source words, and
 * produces what the backend should read for each (normalised, in a script the backend reads).
 */
import { toAscii } from './ascii.js'
import { japaneseReader } from './ja.js'
import { normaliserFor } from './normalise/index.js'
import type { Segment } from './parser.js'
import type { TokenReader } from './token-reader.js'
import { hasSpeakableChars, tokenize } from './tokens.js'
import type { PlanOptions } from './types.js'
import type { Unit } from './units.js'
import { chineseReader } from './zh.js'

/** Readers for scripts that separate words with spaces (every language but zh and ja). */
function spacedReader(opts: PlanOptions): TokenReader {
  const normaliser = normaliserFor(opts.language)
  const forBackend = opts.backend === 'flite' ? toAscii : (text: string) => text
  return {
    readText(segment, addWord) {
      const units: Unit[] = []
      const tokens = tokenize(segment, (token) => normaliser.isAbbreviation(token))
      tokens.forEach((token, index) => {
        const word = hasSpeakableChars(token.text) ? addWord(token.start, token.end) : null
        const context = { previous: tokens[index - 1]?.text, next: tokens[index + 1]?.text }
        const text = forBackend(normaliser.normaliseToken(token.text, context))
        if (text !== '') units.push({ kind: 'speech', text, word, pause: token.pause })
      })
      return units
    },
    readDigits(digits, word) {
      // Spaced digits are read one by one by both backends, in the voice's language.
      const text = Array.from(digits).join(' ')
      return { kind: 'speech', text, word, pause: 'none' }
    },
  }
}

/** The reader for a request. Japanese text is tokenized up front, in kuromoji's worker, only when there is some. */
export async function createReader(opts: PlanOptions, segments: Segment[]): Promise<TokenReader> {
  if (opts.language === 'zh') return chineseReader
  if (opts.language === 'ja') {
    const texts = [...new Set(segments.flatMap((s) => (s.kind === 'text' && s.text.trim() !== '' ? [s.text] : [])))]
    if (texts.length > 0) {
      // The worker's module (and node:worker_threads) loads with the first Japanese text.
      const { tokenizeJapanese } = await import('./kuromoji-worker.js')
      const tokens = await tokenizeJapanese(texts, opts.signal)
      return japaneseReader(new Map(texts.map((text, i) => [text, tokens[i]!])))
    }
  }
  return spacedReader(opts)
}
