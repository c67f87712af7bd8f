/**
 * The writable speech session: text is written in pieces, planned a sentence at a time as it
 * becomes complete, and synthesised on one native stream while more text arrives: each planned
 * take is appended to it, so the session keeps one place in the native schedule. Every entry point
 * of the engine runs on a session (a whole transcript is one write and an end), so a transcript
 * gives the same audio and words however it was written.
 */
import { AlignmentBuilder, type TimedWord } from './alignment.js'
import type { CallScope } from './call-scope.js'
import type { SpeechObserver } from './speech-events.js'
import { TtsError } from '../errors.js'
import { fromNativeError, type NativeChunk } from '../native.js'
import type { SpeechPlanCheck } from '../text/bounds.js'
import { nextPlanningTurn, SpeechPlanner, type PlannerOptions } from '../text/plan.js'
import type { Chunk, PlannedMark, SourceWord } from '../text/types.js'
import type { ChunkStream, RenderedChunkPlan } from './rendered-streams.js'

/**
 * The first take of a session plans about this many characters (a sentence or two), so that the
 * first chunk of a long text is synthesised before the rest of it is planned.
 */
const FIRST_TAKE_CHARS = 200

/**
 * A stretch of a speech stream, as the backend made it: audio in the requested encoding (no
 * container), and the words whose timings became known with it. The audio is a Buffer of its own,
 * shared with nothing, so its reader may free it once done with it (NativeAddon.releaseBuffer).
 */
export interface SpeechChunk {
  audio: Buffer
  samples: number
  /** Sample offset of this stretch from the start of the stream. */
  offsetSamples: number
  /**
   * Words timed in ms from the start of the stream. A word comes with the stretch that holds the
   * end of its audio, or a later one when the backend tells its end only then (at most the end of
   * its chunk): its audio is always in the reader's hands by then.
   */
  words: TimedWord[]
  /** SSML marks reached with these words (a mark is at the start of the word after it), or at the end. Absent when none. */
  marks?: TimedMark[]
  /**
   * This stretch ends a chunk: a clause or sentence the engine synthesised as one utterance (in
   * a compressed format, the encoder may still hold the chunk's last frames).
   */
  endsChunk: boolean
  /**
   * Flushes completed with this chunk: for each, all the audio of the text written before it has
   * been read (in this chunk or earlier). Absent when none; a chunk may carry only this (no audio).
   */
  flushes?: number
}

/** An SSML `<mark>` and when it is reached, in ms from the start of the stream. */
export interface TimedMark {
  name: string
  timeMs: number
}

export interface SpeechSession extends AsyncIterable<SpeechChunk> {
  /** Appends text; complete sentences are synthesised as they arrive. */
  write(text: string): void
  /** Synthesises everything written so far now, even an unfinished sentence (a tag still open keeps waiting). */
  flush(): void
  /** No more text: the rest is spoken, then iteration ends. */
  end(): void
  /** Stops at once; iteration then throws TtsError ABORTED (or `reason` when it is a TtsError). */
  abort(reason?: unknown): void
}

/** What a session needs from the engine: native synthesis for its voice and format. */
export interface SessionSynthesis {
  plan: PlannerOptions
  sampleRate: number
  bytesPerSample: number
  /** Longest text waiting for its sentence to end, in UTF-16 characters. */
  maxPendingChars: number
  /** Longest audio of the session, breaks included. */
  maxAudioSeconds: number
  /**
   * Checks the text as a whole request as it is planned: a take over the limit fails the session
   * (after the audio of the takes before it), and no take is synthesised before one speaks.
   */
  check?: SpeechPlanCheck
  /**
   * Starts the session's native stream on its first planned chunks (its first audio: the pool
   * runs it ahead of other streams' work); later chunks are appended to it.
   */
  start(chunks: RenderedChunkPlan[]): ChunkStream
  /** Makes ready what planned chunks ask for before they are handed over (the voices SSML names). */
  prepare?(chunks: Chunk[]): Promise<void>
  /** Called once when the session is over: read to the end, left early, or aborted. */
  finished?: () => void
  /** Told of the text written and the audio read (metrics, traces). */
  observer?: SpeechObserver
  /** Planned chunks not synthesised, from the first: a resumed job's, whose audio was made before. */
  skipChunks?: number
  /** The reader joins the audio into one: no first audio to hurry, so the rest is planned at once. */
  joined?: boolean
}

/** Chunks planned together, the index after the last word they speak, and the flushes they complete. */
interface Take {
  chunks: Chunk[]
  wordsEnd: number
  flushes: number
}

/** A chunk handed to the native stream; the last of a take completes the words before `wordsEnd`, and its flushes. */
interface QueuedChunk {
  chunk: Chunk
  wordsEnd?: number
  flushes?: number
}

/** The session's one native stream, once its first take has started it. */
interface NativeStreamSlot {
  stream?: ChunkStream
}

/**
 * Cancels the session's native stream. Made outside the session so that the closure holds only
 * the slot, and that weakly: the scope keeps its canceller until the call is collected, and a
 * stream its reader dropped must be collected in the same collection (the native stream cancels
 * itself and frees its audio when collected), not held until the registry's callback has run.
 */
function cancelStream(slot: NativeStreamSlot): () => void {
  const ref = new WeakRef(slot)
  return () => ref.deref()?.stream?.cancel()
}

/** Why planning stops once the session is over; a reason given spares abort() making a DOMException and its stack each time. */
const SESSION_FINISHED = Symbol('the speech session finished')

function endsWithBreak(chunk: Chunk | undefined): boolean {
  return chunk?.pieces[chunk.pieces.length - 1]?.kind === 'break'
}

export class WritableSpeechSession implements SpeechSession {
  private readonly planner: SpeechPlanner
  /** Stops planning once the session is over: a reader that left must not cost the event loop the rest of its text. */
  private readonly planningStop = new AbortController()
  private readonly words: SourceWord[] = []
  /** SSML marks planned, and how many of them have been read. */
  private readonly marks: PlannedMark[] = []
  private marksRead = 0
  /** Planned takes not yet handed to a native stream. */
  private readonly planned: Take[] = []
  /** The session's native stream (in a slot the canceller can hold), made with the first take. */
  private readonly native: NativeStreamSlot = {}
  /** Chunks planned so far (skipped ones included). */
  private chunksPlanned = 0
  /** The last chunk skipped and not yet told to the alignment. */
  private skippedLast: Chunk | undefined
  private streamEnded = false
  /** Chunks on the native stream not yet read, in order: the first is being read. */
  private readonly queued: QueuedChunk[] = []
  /** The last chunk handed to a native stream: the next take's edges depend on it. */
  private previousChunk: Chunk | undefined
  private planning: Promise<void> | undefined
  private planAgain = false
  private firstTakePlanned = false
  private endRequested = false
  private allPlanned = false
  private failure: TtsError | undefined
  private wake: (() => void) | undefined
  /** Opens once the first audio went to the reader (or there is none to wait for): the rest of a long text is planned after it. */
  private openFirstAudioGate: (() => void) | undefined
  private firstAudioGone = false
  private iterated = false
  private finished = false
  /** Flushes asked whose text is not yet all planned. */
  private flushesPlanning = 0
  /** Flushes complete with nothing left to read before them: the reader gets them next. */
  private flushesDone = 0

  /** `scope` is the call: the caller's signal and engine.close() abort it. */
  constructor(
    private readonly synthesis: SessionSynthesis,
    private readonly scope: CallScope,
  ) {
    // The planner's one signal: the call's abort passes into it with its reason (by hand, as
    // AbortSignal.any costs every request tens of microseconds and weak references to collect).
    const { signal } = synthesis.plan
    if (signal?.aborted) this.planningStop.abort(signal.reason)
    else signal?.addEventListener('abort', () => this.planningStop.abort(signal.reason), { once: true })
    this.planner = new SpeechPlanner({ ...synthesis.plan, signal: this.planningStop.signal })
    this.firstAudioGone = synthesis.joined === true
    scope.onCancel(cancelStream(this.native))
    scope.signal.addEventListener('abort', () => {
      this.notify()
      this.finish()
    }, { once: true })
  }

  write(text: string): void {
    if (typeof text !== 'string') throw new TtsError('INVALID_REQUEST', 'write() takes a string')
    if (this.endRequested) throw new TtsError('INVALID_REQUEST', 'write() after end()')
    if (this.finished || this.failure) return  // aborted, failed or left by its reader: nothing more is spoken
    if (this.planner.pendingLength + text.length > this.synthesis.maxPendingChars) {
      this.fail(new TtsError('TRANSCRIPT_TOO_LONG', `more than ${this.synthesis.maxPendingChars} characters are waiting for a sentence to end`))
      return
    }
    this.planner.write(text)
    this.synthesis.observer?.text(text.length)
    this.schedulePlanning()
  }

  flush(): void {
    if (this.endRequested || this.finished) return
    this.flushesPlanning++
    this.planner.flush()
    this.schedulePlanning()
  }

  end(): void {
    if (this.endRequested) return
    this.endRequested = true
    this.planner.end()
    this.schedulePlanning()
  }

  abort(reason?: unknown): void {
    this.scope.abort(reason)
  }

  [Symbol.asyncIterator](): AsyncIterator<SpeechChunk> {
    if (this.iterated) throw new TtsError('INVALID_REQUEST', 'a speech session can be read only once')
    this.iterated = true
    return this.chunks()
  }

  private finish(): void {
    if (this.finished) return
    this.finished = true
    // Planning under way stops, and none starts after this (schedulePlanning): an abort with no
    // planning to stop would cost every request its event.
    if (this.planning) this.planningStop.abort(SESSION_FINISHED)
    this.passFirstAudio()
    this.synthesis.finished?.()
  }

  private fail(error: TtsError): void {
    this.failure ??= error
    this.passFirstAudio()
    this.notify()
  }

  private passFirstAudio(): void {
    this.firstAudioGone = true
    const open = this.openFirstAudioGate
    this.openFirstAudioGate = undefined
    open?.()
  }

  /**
   * Waits until the first audio has gone to the reader, when it is being synthesised: planning
   * holds the main thread a slice at a time, and the first audio must not wait behind one.
   */
  private async untilFirstAudio(): Promise<void> {
    if (this.firstAudioGone || this.native.stream === undefined) return
    await new Promise<void>((resolve) => {
      this.openFirstAudioGate = resolve
    })
    // The reader's own continuation (microtasks) runs first, and other sessions' planning, a slice a turn.
    await nextPlanningTurn()
  }

  private notify(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** Plans on a later microtask, so writes made together are planned together. */
  private schedulePlanning(): void {
    if (this.finished) return
    if (this.planning) {
      this.planAgain = true
      return
    }
    this.planning = Promise.resolve().then(() => this.planLoop())
  }

  private async planLoop(): Promise<void> {
    do {
      this.planAgain = false
      const ending = this.endRequested
      // Flushes asked before this take: complete with it unless text before them is left unplanned.
      const flushes = this.flushesPlanning
      this.flushesPlanning = 0
      const { check } = this.synthesis
      try {
        const plan = await this.planner.take(this.firstTakePlanned ? Infinity : FIRST_TAKE_CHARS)
        check?.add(plan)
        await this.synthesis.prepare?.(plan.chunks)
        this.words.push(...plan.words)
        if (plan.marks) this.marks.push(...plan.marks)
        // A take stopped at its budget leaves flushed text for the next (a tag still open is never flushed).
        const unplanned = this.planner.limited
        if (plan.chunks.length > 0) {
          this.planned.push({ chunks: plan.chunks, wordsEnd: this.words.length, flushes: unplanned ? 0 : flushes })
          this.firstTakePlanned = true
        } else if (!unplanned) {
          this.completeAfterPending(flushes)
        }
        if (unplanned) this.flushesPlanning += flushes
        if (this.planner.limited) {
          this.planAgain = true
        } else if (ending) {
          check?.finish()
          this.allPlanned = true
        }
      } catch (error) {
        this.fail(error instanceof TtsError ? error : new TtsError('SYNTHESIS_FAILED', String(error), { cause: error }))
      }
      if (this.wake) this.startTakes()  // the reader waits for it: start it before planning goes on
      this.notify()
      if (this.planAgain) await this.untilFirstAudio()
    } while (this.planAgain && !this.failure && !this.finished)
    this.planning = undefined
  }

  /** Flushes whose text is all planned and spoke nothing new: complete once what is pending is read. */
  private completeAfterPending(flushes: number): void {
    if (flushes === 0) return
    const lastTake = this.planned[this.planned.length - 1]
    const lastQueued = this.queued[this.queued.length - 1]
    if (lastTake) lastTake.flushes += flushes
    else if (lastQueued) lastQueued.flushes = (lastQueued.flushes ?? 0) + flushes
    else this.flushesDone += flushes
  }

  /**
   * Hands planned takes to the native stream once reading has begun (a checked request's only
   * once one of them speaks); the stream itself synthesises no further ahead than its bound.
   */
  private startTakes(): void {
    if (!this.iterated || this.finished || this.synthesis.check?.speaks === false) return
    while (this.planned.length > 0) {
      try {
        this.handOver(this.planned.shift()!)
      } catch (error) {
        this.planned.length = 0  // nothing after a take that could not start is spoken
        this.fail(error instanceof TtsError ? error : new TtsError('SYNTHESIS_FAILED', String(error), { cause: error }))
      }
    }
    if (this.allPlanned && this.native.stream && !this.streamEnded) {
      this.streamEnded = true
      this.native.stream.end()
    }
  }

  /** Appends a take's chunks to the native stream (starting it with the first), which synthesises them at once. */
  private handOver(take: Take): void {
    const skip = Math.max(0, Math.min(take.chunks.length, (this.synthesis.skipChunks ?? 0) - this.chunksPlanned))
    this.chunksPlanned += take.chunks.length
    if (skip > 0) {
      // Their edges still shape the first chunk spoken after them.
      this.previousChunk = take.chunks[skip - 1]
      this.skippedLast = this.previousChunk
      if (skip === take.chunks.length) return
    }
    const { wordsEnd, flushes } = take
    const chunks = take.chunks.slice(skip)
    const plans = chunks.map((chunk, index): RenderedChunkPlan => {
      const previous = index > 0 ? chunks[index - 1] : this.previousChunk
      const plan = {
        pieces: chunk.pieces,
        breakBefore: endsWithBreak(previous),
        breakAfter: chunks[index + 1]?.pieces[0]?.kind === 'break',
        continued: previous?.continues === true,
        continues: chunk.continues === true,
      }
      return chunk.rendering ? { plan, rendering: chunk.rendering } : { plan }
    })
    if (this.native.stream) {
      try {
        this.native.stream.append(plans)
      } catch (cause) {
        throw fromNativeError(cause, 'synthesis could not go on')
      }
    } else {
      this.native.stream = this.synthesis.start(plans)
    }
    this.previousChunk = chunks[chunks.length - 1]
    chunks.forEach((chunk, index) => this.queued.push(index === chunks.length - 1 ? { chunk, wordsEnd, flushes } : { chunk }))
  }

  /** The next chunk to read, 'flushed' when flushes completed with nothing to read first; undefined once everything is spoken. */
  private async nextChunk(): Promise<QueuedChunk | 'flushed' | undefined> {
    for (;;) {
      this.scope.throwIfAborted()
      this.startTakes()
      if (this.flushesDone > 0) return 'flushed'
      const queued = this.queued[0]
      if (queued) return queued
      if (this.failure) throw this.failure
      if (this.allPlanned) return undefined
      if (this.openFirstAudioGate) this.passFirstAudio()  // the chunks handed over spoke nothing: plan on
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  /** The marks reached by `words` (each at the start of the word after it); with `endMs`, every mark left, at the end. */
  private marksReached(words: readonly TimedWord[], endMs?: number): TimedMark[] {
    const reached: TimedMark[] = []
    for (const word of words) {
      while (this.marksRead < this.marks.length && this.marks[this.marksRead]!.word <= word.index) {
        reached.push({ name: this.marks[this.marksRead++]!.name, timeMs: word.startMs })
      }
    }
    if (endMs !== undefined) while (this.marksRead < this.marks.length) reached.push({ name: this.marks[this.marksRead++]!.name, timeMs: endMs })
    return reached
  }

  private async nextAudio(stream: ChunkStream): Promise<NativeChunk | null> {
    const audio = await stream.next().catch((cause: unknown) => {
      throw fromNativeError(cause, 'synthesis failed')
    })
    this.scope.throwIfAborted()
    if (audio && audio.audio.length !== audio.samples * this.synthesis.bytesPerSample) {
      throw new TtsError('SYNTHESIS_FAILED', 'native chunk size mismatch')
    }
    return audio
  }

  /** A chunk that only completes flushes (the ones done, and `more`). */
  private flushedNow(offsetSamples: number, more = 0): SpeechChunk {
    const flushes = this.flushesDone + more
    this.flushesDone = 0
    return { audio: Buffer.alloc(0), samples: 0, offsetSamples, words: [], endsChunk: false, flushes }
  }

  private async *chunks(): AsyncGenerator<SpeechChunk> {
    const alignment = new AlignmentBuilder(this.words, this.synthesis.sampleRate)
    const { maxAudioSeconds, sampleRate } = this.synthesis
    let offsetSamples = 0
    try {
      for (;;) {
        const queued = await this.nextChunk()
        if (queued === 'flushed') {
          yield this.flushedNow(offsetSamples)
          continue
        }
        if (!queued) {
          const marks = this.marksReached([], Math.round((offsetSamples * 1000) / sampleRate))
          if (marks.length > 0) yield { ...this.flushedNow(offsetSamples, this.flushesPlanning), marks }
          else if (this.flushesDone + this.flushesPlanning > 0) yield this.flushedNow(offsetSamples, this.flushesPlanning)
          return
        }
        if (this.skippedLast) alignment.skip(this.skippedLast)
        this.skippedLast = undefined
        const chunkOffset = offsetSamples
        // A chunk's audio comes in stretches as the backend makes it, each with the words it completes.
        let spoke = false
        for (let last = false; !last; ) {
          const audio = await this.nextAudio(this.native.stream!)
          if (!audio) throw new TtsError('SYNTHESIS_FAILED', 'the native stream ended before its last chunk')
          if (offsetSamples + audio.samples > maxAudioSeconds * sampleRate) {
            throw new TtsError('AUDIO_TOO_LONG', `the audio ran past the limit of ${maxAudioSeconds} s a request`, { extra: { max_seconds: maxAudioSeconds } })
          }
          last = audio.last
          const end = last ? { throughWord: queued.wordsEnd === undefined ? undefined : queued.wordsEnd - 1 } : undefined
          const words = alignment.add(queued.chunk, audio, chunkOffset, end)
          const marks = this.marksReached(words)
          // Off the queue before its last stretch goes out: a flush asked from here on waits for nothing of it.
          if (last) this.queued.shift()
          const flushes = last ? (queued.flushes ?? 0) : 0
          // An empty last stretch still marks the end of a chunk that spoke.
          if (audio.samples > 0 || words.length > 0 || (last && spoke)) {
            spoke = true
            this.passFirstAudio()
            if (audio.samples > 0) this.synthesis.observer?.audio(audio.samples / sampleRate)
            yield { audio: audio.audio, samples: audio.samples, offsetSamples, words, ...(marks.length > 0 && { marks }), endsChunk: last, ...(flushes > 0 && { flushes }) }
          } else {
            this.flushesDone += flushes
          }
          offsetSamples += audio.samples
        }
      }
    } finally {
      // A reader that stops early stops the native work and the session.
      this.native.stream?.cancel()
      this.queued.length = 0
      this.planned.length = 0
      this.allPlanned = true
      this.finish()
    }
  }
}
