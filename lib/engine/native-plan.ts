/**
 * A resolved request as the native stream takes it: the backend, its voice and controls, the PCM
 * it makes, and how far ahead it may run.
 */
import { isCompressed, pcmRate, type OutputFormat } from '../audio/format.js'
import { TtsError } from '../errors.js'
import type { NativePlan } from '../native.js'
import type { PackVoiceStore } from '../neural/voices.js'
import { ESPEAK_LANGUAGE_VOICE } from './models.js'
import type { ResolvedRequest } from './resolve.js'

export interface StreamLimits {
  /** Chunks of one builtin stream synthesised at once. */
  queueCapacity: number
  /** Seconds of unread audio at which a stream starts no more chunks. */
  aheadSeconds: number
}

/**
 * The PCM the native stream makes for a format: the format itself for raw and wav; for a
 * compressed container, float samples at the rate its encoder takes.
 */
function pcmFormat(format: OutputFormat): Pick<NativePlan, 'sampleRate' | 'encoding'> {
  if (!isCompressed(format)) return { sampleRate: format.sample_rate, encoding: format.encoding }
  return { sampleRate: pcmRate(format), encoding: 'pcm_f32le' }
}

/** The voice's own rate on the request's backend (a clone's fitted one), before the request's speed. */
export function voiceSpeed(resolved: ResolvedRequest): number {
  const { rendering } = resolved.voice
  const backend = resolved.model.backend
  if (backend === 'neural') return rendering.speed * (resolved.packTuning?.speed ?? 1)
  return rendering.tuning?.[backend].speed ?? rendering.speed
}

/** The native plan of a request, without its chunks (a session appends them as it plans). */
export function nativePlan(resolved: ResolvedRequest, packVoices: PackVoiceStore, limits: StreamLimits): Omit<NativePlan, 'chunks'> {
  const { model, voice, language, format } = resolved
  const pcm = pcmFormat(format)
  if (model.pack) {
    const speaker = packVoices.speakerFor(model.pack, voice, language)
    return {
      backend: 'neural',
      model: model.pack.model,
      phonemizer: speaker.language === language ? speaker.phonemizer : ESPEAK_LANGUAGE_VOICE[language],
      voice: resolved.packVoice ?? speaker.voice,
      speed: voiceSpeed(resolved),
      requestSpeed: resolved.speed,
      pitch: voice.rendering.pitch,
      ...(resolved.packTuning && { transform: resolved.packTuning.transform }),
      ...pcm,
      // A neural chunk is one model run on `modelThreads` threads whose memory grows with its
      // length: one at a time, a stream holds one chunk's activations, and its first chunk
      // does not share the cores with the second.
      queueCapacity: 1,
      aheadSeconds: limits.aheadSeconds,
    }
  }
  const flite = model.backend === 'flite'
  if (flite && !voice.rendering.flite) {
    throw new TtsError('VOICE_NOT_FOUND', `voice '${voice.record.name}' has no rendering for ${model.id}`)
  }
  const tuning = voice.rendering.tuning?.[flite ? 'flite' : 'espeak']
  return {
    backend: flite ? 'flite' : 'espeak',
    voice: flite ? voice.rendering.flite! : ESPEAK_LANGUAGE_VOICE[language] + voice.rendering.espeakVariant,
    speed: voiceSpeed(resolved),
    requestSpeed: resolved.speed,
    pitch: tuning?.pitch ?? voice.rendering.pitch,
    ...(tuning && { transform: tuning.transform }),
    ...pcm,
    queueCapacity: limits.queueCapacity,
    aheadSeconds: limits.aheadSeconds,
  }
}
