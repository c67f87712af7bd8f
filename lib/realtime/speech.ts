/**
 * The writable speech session a realtime context is built on (the engine's `open()`), and a
 * stand-in built on `engine.speak()` that cuts the written text at clause and sentence ends, used
 * until the engine provides `open()` itself.
 */
import type { TimedWord } from '../alignment.js'
import type { CallOptions, Engine, SpeechChunk } from '../engine.js'
import { TtsError } from '../errors.js'
import { parseOutputFormat, type SynthesisRequest } from '../schemas.js'

export type SessionRequest = Omit<SynthesisRequest, 'transcript'> & { transcript?: string }

export interface SpeechSession extends AsyncIterable<SpeechChunk> {
  write(text: string): void
  flush(): void
  end(): void
  abort(reason?: unknown): void
}

export type OpenSpeech = (request: SessionRequest, options?: CallOptions) => Promise<SpeechSession>

// A clause ends at , ; : (or a sentence end); a sentence at . ! ? — each followed by a space.
const CLAUSE_END = /[,;:.!?…]["')\]]*\s/g
const SENTENCE_END = /[.!?…]["')\]]*\s/g

/** Where buffered text may be cut: after the first clause for the first piece, then after the last whole sentence. */
function cutPoint(text: string, first: boolean): number {
  let end = 0
  for (const match of text.matchAll(first ? CLAUSE_END : SENTENCE_END)) {
    const candidate = match.index + match[0].length
    if (!insideTag(text.slice(0, candidate))) end = candidate
    if (first && end) break
  }
  return end
}

function insideTag(text: string): boolean {
  return text.lastIndexOf('<phonemes') > text.lastIndexOf('</phonemes>') || text.lastIndexOf('<digits') > text.lastIndexOf('</digits>')
}

class SegmentedSpeechSession implements SpeechSession {
  private buffer = ''
  private firstCut = true
  private readonly pieces: string[] = []
  private ended = false
  private readonly controller = new AbortController()
  private wake: (() => void) | undefined
  private readonly sampleRate: number

  constructor(
    private readonly engine: Engine,
    private readonly request: SessionRequest,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.sampleRate = parseOutputFormat(request.output_format, 'raw').sample_rate
    signal?.addEventListener('abort', () => this.abort(signal.reason), { once: true })
    if (request.transcript) this.write(request.transcript)
  }

  write(text: string): void {
    this.buffer += text
    if (this.firstCut) this.cut(cutPoint(this.buffer, true))
    if (!this.firstCut) this.cut(cutPoint(this.buffer, false))
  }

  flush(): void {
    if (!insideTag(this.buffer)) this.cut(this.buffer.length)
  }

  end(): void {
    this.cut(this.buffer.length)
    this.ended = true
    this.wake?.()
  }

  abort(reason?: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason ?? new TtsError('ABORTED', 'the speech session was aborted'))
    this.wake?.()
  }

  private cut(end: number): void {
    if (end <= 0) return
    const piece = this.buffer.slice(0, end)
    this.buffer = this.buffer.slice(end)
    if (!piece.trim()) return
    this.pieces.push(piece)
    this.firstCut = false
    this.wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SpeechChunk> {
    let offsetSamples = 0
    for (;;) {
      if (this.controller.signal.aborted) {
        const reason: unknown = this.controller.signal.reason
        throw reason instanceof TtsError ? reason : new TtsError('ABORTED', 'the speech session was aborted', { cause: reason })
      }
      const piece = this.pieces.shift()
      if (piece === undefined) {
        if (this.ended) return
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = undefined
        continue
      }
      const shiftMs = (offsetSamples * 1000) / this.sampleRate
      let samples = 0
      for await (const chunk of this.engine.speak({ ...this.request, transcript: piece }, { signal: this.controller.signal })) {
        const words: TimedWord[] = chunk.words.map((w) => ({ ...w, startMs: Math.round(w.startMs + shiftMs), endMs: Math.round(w.endMs + shiftMs) }))
        yield { ...chunk, offsetSamples: offsetSamples + chunk.offsetSamples, words }
        samples = chunk.offsetSamples + chunk.samples
      }
      offsetSamples += samples
    }
  }
}

/** The stand-in for `engine.open()` until the engine provides it. */
export function speechOpener(engine: Engine): OpenSpeech {
  return async (request, options = {}) => new SegmentedSpeechSession(engine, request, options.signal)
}
