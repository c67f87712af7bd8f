/**
 * A streamed synthesis (`synthesize-start`, `synthesize-chunk` …, `synthesize-stop`): each
 * sentence is spoken as it completes, in its own audio-start … audio-stop. Every sentence is a
 * speech session of its own on the engine, and the next one is started while the one before is
 * still being sent, so that no sentence waits for the one before it to be read.
 */
import type { Engine, SpeechChunk } from '../../engine/engine.js'
import type { ResolvedRequest } from '../../engine/resolve.js'
import { SentenceCutter } from './sentences.js'

/** Sentences being synthesised at once: the one being sent and the next. */
const SENTENCES_AHEAD = 2

interface StartedSentence {
  chunks: Promise<AsyncIterator<SpeechChunk>>
  /** The first chunk, asked for at once so that synthesis starts before the sentence is read. */
  first: Promise<IteratorResult<SpeechChunk>>
}

export class SpeechStream {
  private cutter: SentenceCutter | undefined
  private request: ResolvedRequest | undefined
  /** Text written before the request was resolved. */
  private early = ''
  private readonly waiting: string[] = []
  /** Characters of the sentences waiting to be started. */
  private waitingChars = 0
  private readonly started: StartedSentence[] = []
  private ended = false
  private failure: unknown
  /** Waiting for a change: a sentence, the end, a failure, or room for more text. */
  private waiters: (() => void)[] = []
  private written = 0
  /** Aborted when the stream fails or its connection goes: the sentences started ahead stop with it. */
  readonly signal: AbortSignal
  private readonly stop = new AbortController()

  constructor(
    private readonly engine: Engine<string>,
    connection: AbortSignal,
    private readonly maxPendingChars: number,
  ) {
    this.signal = AbortSignal.any([connection, this.stop.signal])
  }

  /**
   * Starts speaking with `request` (resolved once for the whole stream): text written so far is cut
   * into sentences now. An SSML stream is spoken whole at its end.
   */
  begin(request: ResolvedRequest, ssml: boolean): void {
    this.request = request
    this.cutter = new SentenceCutter(request.language, this.maxPendingChars, ssml)
    const early = this.early
    this.early = ''
    if (early) this.cut(early)
    if (this.ended) this.end()
  }

  /** Characters the client sent. */
  get characters(): number {
    return this.written
  }

  write(text: string): void {
    if (this.failure !== undefined) return
    this.written += text.length
    this.cut(text)
  }

  private cut(text: string): void {
    if (!this.cutter) {
      // Until the voice is found (and with it the language's sentences); room() bounds it.
      this.early += text
      return
    }
    try {
      for (const sentence of this.cutter.write(text)) this.add(sentence)
    } catch (error) {
      this.fail(error)
    }
  }

  end(): void {
    this.ended = true
    if (!this.cutter || this.failure !== undefined) return this.notify()
    const rest = this.cutter.end()
    if (rest.trim() !== '') this.add(rest)
    this.notify()
  }

  fail(error: unknown): void {
    this.failure ??= error
    this.stop.abort(error)
    this.notify()
  }

  /** The next sentence's speech, undefined once the stream ended; throws the stream's failure. */
  async next(): Promise<StartedSentence | undefined> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure
      const sentence = this.started.shift()
      if (sentence) {
        this.startWaiting()
        return sentence
      }
      if (this.ended && this.cutter && this.waiting.length === 0) return undefined
      await this.changed()
    }
  }

  /**
   * Resolves once the stream holds less than its bound of text waiting to be spoken: a client
   * that sends text faster than it takes the audio is not read from meanwhile.
   */
  async room(): Promise<void> {
    while (this.failure === undefined && this.waitingChars + this.early.length >= this.maxPendingChars) await this.changed()
  }

  private add(sentence: string): void {
    this.waiting.push(sentence)
    this.waitingChars += sentence.length
    this.startWaiting()
    this.notify()
  }

  private startWaiting(): void {
    while (this.started.length < SENTENCES_AHEAD && this.waiting.length > 0) {
      const sentence = this.waiting.shift()!
      this.waitingChars -= sentence.length
      this.started.push(this.startSentence(sentence))
    }
    this.notify()
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private startSentence(text: string): StartedSentence {
    const chunks = this.engine.open(this.request!, { signal: this.signal }).then((session) => {
      session.write(text)
      session.end()
      return session[Symbol.asyncIterator]()
    })
    const first = chunks.then((iterator) => iterator.next())
    // Read later, in order; a failure before then is thrown to the reader, not left unhandled.
    first.catch(() => {})
    return { chunks, first }
  }

  private notify(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}
