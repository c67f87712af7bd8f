/**
 * The events Cartesia's streams carry (SSE and WebSocket alike), shaped as the SDK's
 * `WebsocketResponse` and `TTSSSEEvent` types and LiveKit's plugin schemas read them: chunks are
 * status 206 (partial content), the end is 200, an error carries its own status.
 */
import type { Alignment } from '../../../engine/alignment.js'
import type { TtsError } from '../../../errors.js'
import { cartesiaError } from './dialect.js'

/** Word timings as Cartesia sends them: seconds from the start of the context's audio. */
export interface WordTimestamps {
  words: string[]
  start: number[]
  end: number[]
}

export function wordTimestamps(alignment: Alignment): WordTimestamps {
  return {
    words: alignment.words,
    start: alignment.word_start_times_milliseconds.map((ms) => ms / 1000),
    end: alignment.word_end_times_milliseconds.map((ms) => ms / 1000),
  }
}

/** `context_id` is left out where the request named none (SSE without one). */
function inContext(contextId: string | undefined): { context_id?: string } {
  return contextId === undefined ? {} : { context_id: contextId }
}

export function chunkEvent(data: string, stepTimeMs: number, contextId: string | undefined) {
  return { type: 'chunk', data, done: false, status_code: 206, step_time: stepTimeMs, ...inContext(contextId) } as const
}

export function timestampsEvent(timestamps: WordTimestamps, contextId: string | undefined) {
  return { type: 'timestamps', done: false, status_code: 206, word_timestamps: timestamps, ...inContext(contextId) } as const
}

/** The audio of the text sent before this flush is all out. */
export function flushDoneEvent(flushId: number, contextId: string) {
  return { type: 'flush_done', done: false, flush_done: true, flush_id: flushId, status_code: 200, context_id: contextId } as const
}

export function doneEvent(contextId: string | undefined) {
  return { type: 'done', done: true, status_code: 200, ...inContext(contextId) } as const
}

/** An error ends what it concerns (`done: true`); `error` repeats the message for LiveKit's plugin, which reads that field. */
export function errorEvent(error: TtsError, contextId: string | undefined) {
  const body = cartesiaError(error)
  return { type: 'error', done: true, ...body, error: body.message, ...inContext(contextId) } as const
}
