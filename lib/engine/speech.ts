/**
 * Speech of a resolved request: a writable speech session on one native stream (through an
 * encoder for a compressed format), read chunk by chunk, or joined into one file with its words.
 */
import { BYTES_PER_SAMPLE, isCompressed, setFlacTotalSamples, wavHeader } from '../audio/format.js'
import { fromNativeError, type NativeAddon, type NativePlan } from '../native.js'
import type { PackVoiceStore } from '../neural/voices.js'
import { SpeechPlanCheck } from '../text/bounds.js'
import type { Chunk, Rendering } from '../text/types.js'
import type { StoredVoice } from '../voices/types.js'
import type { TimedWord } from './alignment.js'
import { checkSwitchedVoice } from './call-policy.js'
import type { CallScope } from './call-scope.js'
import { createEncoder, EncodedSpeechSession } from './encoded-session.js'
import { nativePlan, voiceSpeed, type StreamLimits } from './native-plan.js'
import { RenderedStreams } from './rendered-streams.js'
import type { ResolvedRequest } from './resolve.js'
import { observeSession } from './speech-events.js'
import { WritableSpeechSession, type SpeechChunk, type SpeechSession, type TimedMark } from './speech-session.js'

/** A voice SSML's `<voice name>` names: by id, or a predefined voice's name. */
export type VoiceFinder = (name: string, signal: AbortSignal) => Promise<StoredVoice>

/** What the native side takes (native/binding/plan.cc): SSML's prosody is clamped into it. */
const NATIVE_SPEED = { min: 0.25, max: 4 }
const NATIVE_REQUEST_SPEED = { min: 0.5, max: 2 }
const NATIVE_PITCH = { min: 0.25, max: 4 }

/**
 * espeak-ng's median pitch moves about two thirds as far as the factor it is given (its pitch
 * parameter also sets the intonation's range): SSML's pitch is raised to this power for it, so
 * `+4st` is heard as about 4 semitones (measured on its English voices: see test/engine/ssml-audio.test.ts).
 */
const ESPEAK_PITCH_RESPONSE = 1.5

function clamp(value: number, range: { min: number; max: number }): number {
  return Math.min(range.max, Math.max(range.min, value))
}

/** How much one text may be: the engine's per-request bounds, or a long-form job's own. */
export interface SpeechBounds {
  maxTranscriptChars: number
  maxAudioSeconds: number
}

export interface SpeechLimits extends StreamLimits, SpeechBounds {}

function formatLabel(format: ResolvedRequest['format']): string {
  return `${format.container}/${format.encoding}@${format.sample_rate}`
}

export class Speech {
  constructor(
    private readonly native: NativeAddon,
    private readonly packVoices: PackVoiceStore,
    private readonly limits: SpeechLimits,
    private readonly findVoice: VoiceFinder,
  ) {}

  /**
   * The native plan of a chunk with an SSML rendering: the request's, with the voice and language
   * it names, and its rate and pitch on top of the request's (clamped to what the backends take).
   */
  private renderingPlan(resolved: ResolvedRequest, base: Omit<NativePlan, 'chunks'>, rendering: Rendering | undefined, voices: ReadonlyMap<string, StoredVoice>): Omit<NativePlan, 'chunks'> {
    if (!rendering) return base
    const voice = rendering.voice === undefined ? resolved.voice : voices.get(rendering.voice)!
    const language = rendering.language ?? resolved.language
    const { packTuning, ...request } = resolved
    const plan = voice === resolved.voice && language === resolved.language
      ? base
      : nativePlan({ ...request, voice, language, ...(voice === resolved.voice && packTuning && { packTuning }) }, this.packVoices, this.limits)
    const rate = rendering.rate ?? 1
    const requestSpeed = clamp(plan.requestSpeed * rate, NATIVE_REQUEST_SPEED)
    const speed = clamp((plan.speed * plan.requestSpeed * rate) / requestSpeed, NATIVE_SPEED)
    const pitch = (rendering.pitch ?? 1) ** (plan.backend === 'espeak' ? ESPEAK_PITCH_RESPONSE : 1)
    return { ...plan, speed, requestSpeed, pitch: clamp(plan.pitch * pitch, NATIVE_PITCH) }
  }

  /** Looks up the voices the chunks' renderings name that `voices` does not hold yet, each held to the caller's binding. */
  private async prepareVoices(chunks: Chunk[], voices: Map<string, StoredVoice>, scope: CallScope): Promise<void> {
    for (const chunk of chunks) {
      const name = chunk.rendering?.voice
      if (name === undefined || voices.has(name)) continue
      const voice = await this.findVoice(name, scope.signal)
      checkSwitchedVoice(voice.record.voice_id, scope.caller)
      voices.set(name, voice)
    }
  }

  /**
   * A session for a resolved request. `whole`: the text is one request's transcript, checked as a
   * whole as it is planned (it has something to say, and not too much). `joined`: its reader joins
   * the audio into one, so no chunk is handed on before it is made, and no first audio is awaited.
   */
  session(resolved: ResolvedRequest, scope: CallScope, how: { whole: boolean; joined?: boolean; onFinish?: () => void; skipChunks?: number; bounds?: SpeechBounds }): SpeechSession {
    const plan = nativePlan(resolved, this.packVoices, this.limits)  // a voice that cannot be rendered fails here
    const { maxTranscriptChars, maxAudioSeconds } = how.bounds ?? this.limits
    const voices = new Map<string, StoredVoice>()
    const { format } = resolved
    const encoder = isCompressed(format) ? createEncoder(this.native, format) : undefined
    const speed = voiceSpeed(resolved) * resolved.speed
    const session = new WritableSpeechSession(
      {
        plan: {
          language: resolved.language,
          languages: resolved.model.languages,
          backend: resolved.model.backend,
          signal: scope.signal,
          ...(resolved.ssmlUnknownElements && { unknownElements: resolved.ssmlUnknownElements }),
          ...(resolved.lexicon && { lexicon: resolved.lexicon }),
        },
        sampleRate: plan.sampleRate,
        bytesPerSample: BYTES_PER_SAMPLE[plan.encoding],
        maxPendingChars: maxTranscriptChars,
        maxAudioSeconds,
        ...(how.whole && { check: new SpeechPlanCheck({ maxAudioSeconds, speed }) }),
        start: (chunks) => {
          const streams = new RenderedStreams((rendering, plans, leading) => {
            const rendered = this.renderingPlan(resolved, plan, rendering, voices)
            try {
              return new this.native.SynthStream({ ...rendered, chunks: plans, leading, open: true, ...(how.joined && { wholeChunks: true }) })
            } catch (cause) {
              throw fromNativeError(cause, 'synthesis could not start')
            }
          }, plan.encoding)
          streams.append(chunks)
          return streams
        },
        prepare: (chunks) => this.prepareVoices(chunks, voices, scope),
        ...(how.onFinish && { finished: how.onFinish }),
        ...(how.skipChunks && { skipChunks: how.skipChunks }),
        ...(how.joined && { joined: true }),
        observer: observeSession({ model: resolved.model.id, voiceType: resolved.voice.record.voice_type, format: formatLabel(format), caller: scope.caller }),
      },
      scope,
    )
    return encoder ? new EncodedSpeechSession(session, encoder, this.native) : session
  }

  /** The request's transcript spoken, chunk by chunk (after the first `skipChunks` planned chunks; within `bounds` where given). */
  run(resolved: ResolvedRequest, scope: CallScope, skipChunks = 0, bounds?: SpeechBounds): AsyncGenerator<SpeechChunk> {
    return this.spoken(resolved, scope, { whole: true, skipChunks, ...(bounds && { bounds }) })
  }

  private async *spoken(resolved: ResolvedRequest, scope: CallScope, how: Parameters<Speech['session']>[2]): AsyncGenerator<SpeechChunk> {
    scope.throwIfAborted()
    const session = this.session(resolved, scope, how)
    session.write(resolved.transcript)
    session.end()
    yield* session
  }

  /** The whole stream joined into one file in the requested container, with every word's time. */
  async render(resolved: ResolvedRequest, scope: CallScope): Promise<{ audio: Buffer; words: TimedWord[]; marks: TimedMark[] }> {
    const parts: Buffer[] = []
    const words: TimedWord[] = []
    const marks: TimedMark[] = []
    let samples = 0
    for await (const chunk of this.spoken(resolved, scope, { whole: true, joined: true })) {
      parts.push(chunk.audio)
      words.push(...chunk.words)
      if (chunk.marks) marks.push(...chunk.marks)
      samples += chunk.samples
    }
    const { format } = resolved
    const audio = this.joined(parts, format)
    // The whole file is known: its header can say how long it is.
    return { audio: format.container === 'flac' ? setFlacTotalSamples(audio, samples) : audio, words, marks }
  }

  /** The chunks' audio as one file (a WAV header first); the chunks, once copied, are freed at once. */
  private joined(parts: Buffer[], format: ResolvedRequest['format']): Buffer {
    if (parts.length === 1 && format.container !== 'wav') return parts[0]!
    const bytes = parts.reduce((sum, part) => sum + part.length, 0)
    const joined = Buffer.concat(format.container === 'wav' ? [wavHeader(format, bytes), ...parts] : parts)
    for (const part of parts) this.native.releaseBuffer(part)
    return joined
  }
}
