/**
 * Speech of a resolved request: a writable speech session on one native stream (through an
 * encoder for a compressed format), read chunk by chunk, or joined into one file with its words.
 */
import { BYTES_PER_SAMPLE, isCompressed, setFlacTotalSamples, wavHeader } from '../audio/format.js'
import { fromNativeError, type NativeAddon } from '../native.js'
import type { PackVoiceStore } from '../neural/voices.js'
import { SpeechPlanCheck } from '../text/bounds.js'
import type { TimedWord } from './alignment.js'
import type { CallScope } from './call-scope.js'
import { createEncoder, EncodedSpeechSession } from './encoded-session.js'
import { nativePlan, voiceSpeed, type StreamLimits } from './native-plan.js'
import type { ResolvedRequest } from './resolve.js'
import { observeSession } from './speech-events.js'
import { WritableSpeechSession, type SpeechChunk, type SpeechSession } from './speech-session.js'

export interface SpeechLimits extends StreamLimits {
  maxTranscriptChars: number
  maxAudioSeconds: number
}

function formatLabel(format: ResolvedRequest['format']): string {
  return `${format.container}/${format.encoding}@${format.sample_rate}`
}

export class Speech {
  constructor(
    private readonly native: NativeAddon,
    private readonly packVoices: PackVoiceStore,
    private readonly limits: SpeechLimits,
  ) {}

  /**
   * A session for a resolved request. `whole`: the text is one request's transcript, checked as a
   * whole as it is planned (it has something to say, and not too much).
   */
  session(resolved: ResolvedRequest, scope: CallScope, how: { whole: boolean; onFinish?: () => void; skipChunks?: number }): SpeechSession {
    const plan = nativePlan(resolved, this.packVoices, this.limits)  // a voice that cannot be rendered fails here
    const { format } = resolved
    const encoder = isCompressed(format) ? createEncoder(this.native, format) : undefined
    const speed = voiceSpeed(resolved) * resolved.speed
    const { maxAudioSeconds } = this.limits
    const session = new WritableSpeechSession(
      {
        plan: { language: resolved.language, backend: resolved.model.backend, signal: scope.signal },
        sampleRate: plan.sampleRate,
        bytesPerSample: BYTES_PER_SAMPLE[plan.encoding],
        maxPendingChars: this.limits.maxTranscriptChars,
        maxAudioSeconds,
        ...(how.whole && { check: new SpeechPlanCheck({ maxAudioSeconds, speed }) }),
        start: (chunks) => {
          try {
            return new this.native.SynthStream({ ...plan, chunks, leading: true, open: true })
          } catch (cause) {
            throw fromNativeError(cause, 'synthesis could not start')
          }
        },
        ...(how.onFinish && { finished: how.onFinish }),
        ...(how.skipChunks && { skipChunks: how.skipChunks }),
        observer: observeSession({ model: resolved.model.id, voiceType: resolved.voice.record.voice_type, format: formatLabel(format) }),
      },
      scope,
    )
    return encoder ? new EncodedSpeechSession(session, encoder) : session
  }

  /** The request's transcript spoken, chunk by chunk (after the first `skipChunks` planned chunks). */
  async *run(resolved: ResolvedRequest, scope: CallScope, skipChunks = 0): AsyncGenerator<SpeechChunk> {
    scope.throwIfAborted()
    const session = this.session(resolved, scope, { whole: true, skipChunks })
    session.write(resolved.transcript)
    session.end()
    yield* session
  }

  /** The whole stream joined into one file in the requested container, with every word's time. */
  async render(resolved: ResolvedRequest, scope: CallScope): Promise<{ audio: Buffer; words: TimedWord[] }> {
    const parts: Buffer[] = []
    const words: TimedWord[] = []
    let samples = 0
    for await (const chunk of this.run(resolved, scope)) {
      parts.push(chunk.audio)
      words.push(...chunk.words)
      samples += chunk.samples
    }
    const joined = Buffer.concat(parts)
    const { format } = resolved
    if (format.container === 'wav') return { audio: Buffer.concat([wavHeader(format, joined.length), joined]), words }
    // The whole file is known: its header can say how long it is.
    if (format.container === 'flac') return { audio: setFlacTotalSamples(joined, samples), words }
    return { audio: joined, words }
  }
}
