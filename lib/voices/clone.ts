/**
 * Cloning policy: what a sample must be, what it measures, and how a builtin voice is fitted to
 * it. The measuring is native (lib/native.ts); this file decides.
 *
 * A clone is the closest predefined voice for its gender, tuned per backend: the backend's own
 * pitch and speed controls first, then the voice transform (Rubber Band) for the formant scale and
 * any pitch the backend cannot reach. The tuning is fitted in a closed loop: render a calibration
 * text, measure it with the same analysis as the sample, correct, repeat.
 */
import { TtsError, type ErrorCode } from '../errors.js'
import type { NativeAddon, NativeSpeechMeasures } from '../native.js'
import type { BackendKind } from '../text/types.js'
import { PREDEFINED_VOICES } from './predefined.js'
import type { BackendTuning, Gender, VoiceAnalysis, VoiceRendering } from './types.js'

export const SAMPLE_LIMITS = {
  /** Speech left after trimming silence. */
  minSpeechSeconds: 3,
  /** The whole recording. */
  maxSeconds: 60,
  /** The upload: 60 s of 48 kHz stereo 24-bit WAV is 17 MB. */
  maxBytes: 20 * 1024 * 1024,
} as const

/** A spacing of 1000 Hz between formants is a 17.5 cm vocal tract, the usual adult male. */
const REFERENCE_FORMANT_SPACING_HZ = 1000

const SAMPLE_CODES: readonly ErrorCode[] = ['UNSUPPORTED_AUDIO', 'SAMPLE_TOO_LONG']

/** Decodes and measures an uploaded sample; rejects what cannot make a voice. */
export async function analyseSample(native: NativeAddon, audio: Buffer): Promise<{ analysis: VoiceAnalysis; mediaType: string }> {
  if (audio.length > SAMPLE_LIMITS.maxBytes) {
    throw new TtsError('SAMPLE_TOO_LARGE', `the sample is ${audio.length} bytes; the limit is ${SAMPLE_LIMITS.maxBytes}`)
  }
  const measures = await native.analyseSample(audio, SAMPLE_LIMITS.maxSeconds).catch((cause: unknown) => {
    const message = cause instanceof Error ? cause.message : String(cause)
    const code = SAMPLE_CODES.find((c) => message.startsWith(`${c}: `))
    if (!code) throw cause
    const detail = message.slice(code.length + 2)
    throw new TtsError(code, code === 'SAMPLE_TOO_LONG' ? `${detail} of ${SAMPLE_LIMITS.maxSeconds} s` : detail)
  })
  if (measures.speechSeconds < SAMPLE_LIMITS.minSpeechSeconds) {
    throw new TtsError('SAMPLE_TOO_SHORT',
      `the sample has ${measures.speechSeconds.toFixed(1)} s of speech after trimming silence; at least ${SAMPLE_LIMITS.minSpeechSeconds} s are needed`)
  }
  // Speech is voiced much of the time; noise or music that is loud enough to pass as speech is not.
  if (measures.pitchHz === 0 || measures.voicedSeconds < Math.max(0.5, 0.08 * measures.speechSeconds)) {
    throw new TtsError('SAMPLE_NOT_SPEECH', `the sample does not sound like speech (${measures.voicedSeconds.toFixed(1)} s voiced)`)
  }
  return { analysis: toAnalysis(measures), mediaType: mediaTypeOf(measures.format) }
}

export function toAnalysis(m: NativeSpeechMeasures): VoiceAnalysis {
  return {
    pitchHz: m.pitchHz,
    pitchRangeSemitones: m.pitchP10Hz > 0 ? 12 * Math.log2(m.pitchP90Hz / m.pitchP10Hz) : 0,
    formantScale: m.formantSpacingHz / REFERENCE_FORMANT_SPACING_HZ,
    syllablesPerSecond: m.onsetsPerSecond,
    loudnessDb: m.loudnessDb,
    speechSeconds: m.speechSeconds,
  }
}

function mediaTypeOf(format: string): string {
  if (/^WAV|^RIFF|^WAVEX/i.test(format)) return 'audio/wav'
  if (/FLAC/i.test(format)) return 'audio/flac'
  if (/OGG/i.test(format)) return 'audio/ogg'
  if (/MPEG|MP3/i.test(format)) return 'audio/mpeg'
  return 'application/octet-stream'
}

/** Below this median pitch a voice is taken as male when the caller names no gender. */
const MALE_BELOW_HZ = 160

export function inferGender(analysis: VoiceAnalysis): Gender {
  return analysis.pitchHz < MALE_BELOW_HZ ? 'Male' : 'Female'
}

/** flite's rms ignores pitch settings (NATIVE.md C6), so it cannot be a clone's base. */
const UNTUNABLE = new Set(['rms'])

/** A clone starts from the closest English predefined voice of its gender: their renderings per backend. */
function baseRenderings(backend: BackendKind, gender: Gender): string[] {
  const renderings = PREDEFINED_VOICES.filter((v) => v.record.language === 'en' && v.record.gender === gender)
    .map((v) => (backend === 'flite' ? v.rendering.flite : v.rendering.espeakVariant))
    .filter((r): r is string => r !== undefined && !UNTUNABLE.has(r))
  return [...new Set(renderings)]
}

/** How far apart two voices sound: semitones of pitch plus (weighted) formant distance. */
function distance(a: VoiceAnalysis, b: VoiceAnalysis): number {
  return Math.abs(12 * Math.log2(a.pitchHz / b.pitchHz)) + 24 * Math.abs(Math.log2(a.formantScale / b.formantScale))
}

/** What the backend itself can do with pitch; the transform does the rest. */
const BACKEND_PITCH: Record<BackendKind, [number, number]> = { espeak: [0.5, 2], flite: [0.5, 2] }
/** A neural pack has no pitch control of its own: all of it is the transform's. */
const NO_OWN_PITCH: [number, number] = [1, 1]
const TRANSFORM_LIMITS: [number, number] = [0.5, 2]
const SPEED_LIMITS: [number, number] = [0.7, 1.5]
const FIT_ROUNDS = 3

const clamp = (x: number, [lo, hi]: [number, number]) => Math.min(hi, Math.max(lo, x))

/** Renders the calibration text with a base voice and tuning on a backend, and measures it. */
export type MeasureRendering = (backend: BackendKind, base: string, tuning: BackendTuning) => Promise<VoiceAnalysis>

const NEUTRAL: BackendTuning = { speed: 1, pitch: 1, transform: { pitchScale: 1, formantScale: 1 } }

function split(ownPitch: [number, number], pitch: number, formantScale: number, speed: number): BackendTuning {
  const own = clamp(pitch, ownPitch)
  return {
    speed,
    pitch: own,
    transform: { pitchScale: clamp(pitch / own, TRANSFORM_LIMITS), formantScale: clamp(formantScale, TRANSFORM_LIMITS) },
  }
}

/** target / measured, or 1 where the rendering gave nothing to measure (no voiced frame). */
const ratio = (target: number, measured: number) => (measured > 0 && target > 0 ? target / measured : 1)

/**
 * Closes the loop from a voice's neutral measure: pitch and formants corrected until they are
 * within 0.3 semitone and 2 % of the target, or FIT_ROUNDS renders. `withSpeed`: the syllable
 * rate is matched too.
 */
async function refine(
  target: VoiceAnalysis,
  neutral: VoiceAnalysis,
  ownPitch: [number, number],
  withSpeed: boolean,
  measure: (tuning: BackendTuning) => Promise<VoiceAnalysis>,
): Promise<BackendTuning> {
  const speed = withSpeed ? clamp(ratio(target.syllablesPerSecond, neutral.syllablesPerSecond), SPEED_LIMITS) : 1
  let pitch = ratio(target.pitchHz, neutral.pitchHz)
  let formant = ratio(target.formantScale, neutral.formantScale)
  let tuning = split(ownPitch, pitch, formant, speed)
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const got = await measure(tuning)
    const pitchError = ratio(target.pitchHz, got.pitchHz)
    const formantError = ratio(target.formantScale, got.formantScale)
    if (Math.abs(12 * Math.log2(pitchError)) < 0.3 && Math.abs(formantError - 1) < 0.02) break
    pitch *= pitchError
    formant *= formantError
    tuning = split(ownPitch, pitch, formant, speed)
  }
  return tuning
}

async function fitBackend(
  backend: BackendKind,
  gender: Gender,
  target: VoiceAnalysis,
  measure: MeasureRendering,
): Promise<{ base: string; tuning: BackendTuning }> {
  const bases = await Promise.all(baseRenderings(backend, gender).map(async (base) => ({ base, measured: await measure(backend, base, NEUTRAL) })))
  const { base, measured } = bases.reduce((best, b) => (distance(b.measured, target) < distance(best.measured, target) ? b : best))
  return { base, tuning: await refine(target, measured, BACKEND_PITCH[backend], true, (tuning) => measure(backend, base, tuning)) }
}

/**
 * Fits a cloned voice to the neural pack voice it speaks with (the pack's closest one): the voice
 * transform does all of the pitch and the formants, as a pack has no pitch control of its own.
 * `withSpeed`: false for a pack that takes whole speeds only.
 */
export async function fitPackTuning(
  target: VoiceAnalysis,
  withSpeed: boolean,
  measure: (tuning: BackendTuning) => Promise<VoiceAnalysis>,
): Promise<BackendTuning> {
  return refine(target, await measure(NEUTRAL), NO_OWN_PITCH, withSpeed, measure)
}

/** Fits a rendering for every builtin backend to the sample's analysis. */
export async function fitRendering(target: VoiceAnalysis, gender: Gender, measure: MeasureRendering): Promise<VoiceRendering> {
  const espeak = await fitBackend('espeak', gender, target, measure)
  const flite = await fitBackend('flite', gender, target, measure)
  return {
    espeakVariant: espeak.base,
    flite: flite.base,
    speed: 1,
    pitch: 1,
    tuning: { espeak: espeak.tuning, flite: flite.tuning },
  }
}
