/**
 * What the engine tells observers about the speech it makes (metrics, traces): a session started
 * for a model, voice type and format; text written to it; audio read from it. Published on a
 * diagnostics channel, so the engine knows nothing of who listens and costs nothing when no one
 * does. A session's start carries the signal its call was made with, which is how the service ties
 * the session to the request it serves.
 */
import diagnostics_channel from 'node:diagnostics_channel'
import type { VoiceType } from '../voices/types.js'

export const SPEECH_CHANNEL = diagnostics_channel.channel('svc-tts:speech')

export type SpeechEvent =
  | {
      type: 'start'
      /** The session: the same object in each of its events. */
      session: object
      /** The signal the call was made with (its caller's own), if any. */
      caller: AbortSignal | undefined
      model: string
      voiceType: VoiceType
      /** `container/encoding@rate`, e.g. `wav/pcm_s16le@24000`. */
      format: string
    }
  | { type: 'text'; session: object; characters: number }
  | { type: 'audio'; session: object; seconds: number }

/** One session's publisher (undefined when no one listens as the session starts). */
export interface SpeechObserver {
  text(characters: number): void
  audio(seconds: number): void
}

export function observeSession(start: Omit<Extract<SpeechEvent, { type: 'start' }>, 'type' | 'session'>): SpeechObserver | undefined {
  if (!SPEECH_CHANNEL.hasSubscribers) return undefined
  const session = {}
  SPEECH_CHANNEL.publish({ type: 'start', session, ...start } satisfies SpeechEvent)
  return {
    text: (characters) => SPEECH_CHANNEL.publish({ type: 'text', session, characters } satisfies SpeechEvent),
    audio: (seconds) => SPEECH_CHANNEL.publish({ type: 'audio', session, seconds } satisfies SpeechEvent),
  }
}
