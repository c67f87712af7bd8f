import { expect } from 'vitest'
import type { SpeechChunk } from '../../lib/index.js'

/**
 * Checks that word timings stream with the audio. No word comes before the stretch that holds the
 * end of its audio. A word comes no later than the stretch that holds the start of the next spoken
 * word of its chunk: by then the backend has said where it ends (espeak-ng ends a word when the
 * next begins). A chunk's last word comes at most one stretch after the one that holds its end:
 * the backend's reading has ended there. Where the backend times every word before any audio
 * (`timedAhead`: flite, neural packs), each word comes with the stretch that holds its end. All of
 * it holds however a slow reader's stretches were merged.
 */
export function expectWordsStreamWithAudio(stretches: readonly SpeechChunk[], sampleRate: number, timedAhead = false): void {
  const endMs = stretches.map((s) => ((s.offsetSamples + s.samples) * 1000) / sampleRate)
  // Times are whole ms: an end within 1 ms of a stretch's may fall in the next.
  const holding = (ms: number) => endMs.findIndex((end) => end >= ms + 1)
  let chunk = 0
  const arrivals = stretches.flatMap((stretch, index) => {
    const words = stretch.words.map((word) => ({ word, index, chunk }))
    if (stretch.endsChunk) chunk++
    return words
  })
  arrivals.forEach(({ word, index, chunk }, i) => {
    expect(word.endMs, word.text).toBeLessThanOrEqual(endMs[index]! + 0.5)
    if (timedAhead) expect(index, `${word.text} with its end`).toBeLessThanOrEqual(holding(word.endMs))
    const next = arrivals[i + 1]
    if (next?.chunk === chunk) {
      if (next.word.endMs > next.word.startMs) expect(index, `${word.text} before ${next.word.text}`).toBeLessThanOrEqual(holding(next.word.startMs - 0.5))
    } else if (word.endMs > word.startMs) {
      expect(index, `${word.text}, its chunk's last`).toBeLessThanOrEqual(holding(word.endMs) + 1)
    }
  })
}
