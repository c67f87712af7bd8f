import { expect } from 'vitest'
import type { SpeechChunk } from '../../lib/index.js'

/**
 * Checks that word timings stream with the audio. No word comes before the stretch that holds the
 * end of its audio. And a word comes no later than the stretch that holds the start of the next
 * spoken word: by then the backend has said where the word ends (espeak-ng when the next word
 * begins), so only a chunk's last word may wait for its end. Where the backend times every word
 * before any audio (`timedAhead`: flite, neural packs), each word comes with the stretch that holds
 * its end. All of it holds however a slow reader's stretches were merged.
 */
export function expectWordsStreamWithAudio(stretches: readonly SpeechChunk[], sampleRate: number, timedAhead = false): void {
  const endMs = stretches.map((s) => ((s.offsetSamples + s.samples) * 1000) / sampleRate)
  const arrivals = stretches.flatMap((stretch, index) => stretch.words.map((word) => ({ word, index })))
  for (const { word, index } of arrivals) {
    expect(word.endMs, word.text).toBeLessThanOrEqual(endMs[index]! + 0.5)
    // Times are whole ms: an end within 1 ms of a stretch's may fall in the next.
    if (timedAhead) expect(index, `${word.text} with its end`).toBeLessThanOrEqual(endMs.findIndex((end) => end >= word.endMs + 1))
  }
  arrivals.forEach(({ word, index }, i) => {
    const next = arrivals[i + 1]?.word
    if (!next || next.endMs <= next.startMs) return
    const holdingNextStart = endMs.findIndex((end) => end >= next.startMs + 0.5)
    expect(index, `${word.text} before ${next.text}`).toBeLessThanOrEqual(holdingNextStart)
  })
}
