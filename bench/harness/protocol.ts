/**
 * The measurement protocol, shared by the in-process engine and the command-line programs so both
 * sides of every comparison speak the same texts the same number of times.
 */
import { median, medianRun, quantile } from './stats.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES } from './texts.js'

/** One spoken text, seen from the consumer's side. */
export interface SpeechTiming {
  /** From the call (or the spawn) to the first audio: the first chunk in-process, the first stdout byte for a CLI. */
  firstAudioMs: number
  /** From the call (or the spawn) to the end of the audio (for a CLI, the process's exit). */
  totalMs: number
  audioSeconds: number
}

export type Speaker = (text: string) => Promise<SpeechTiming>

export interface LatencySummary {
  medianMs: number
  p95Ms: number
  runs: number
}

export interface RealTimeFactor {
  wallMs: number
  audioSeconds: number
  /** Wall time over audio time: below 1 is faster than real time. */
  rtf: number
}

export interface SpeakerMeasurements {
  /** Two-sentence text, warm, repeated. */
  firstAudio: LatencySummary
  /** Median whole-text time of those same runs. */
  twoSentenceTotalMs: number
  /** The 20 sentences, one request (or process) each, summed; the median of the repeats. */
  sentences: RealTimeFactor
  /** The 1000-word text as one request (or process); the median of the repeats. */
  paragraph: RealTimeFactor & { firstAudioMs: number }
}

const WARMUP_RUNS = 5
const FIRST_AUDIO_RUNS = 40
const RTF_REPEATS = 3

function realTimeFactor(wallMs: number, audioSeconds: number): RealTimeFactor {
  return { wallMs, audioSeconds, rtf: wallMs / 1000 / audioSeconds }
}

async function speakSentences(speak: Speaker): Promise<RealTimeFactor> {
  let wallMs = 0
  let audioSeconds = 0
  for (const sentence of HARVARD_SENTENCES) {
    const timing = await speak(sentence)
    wallMs += timing.totalMs
    audioSeconds += timing.audioSeconds
  }
  return realTimeFactor(wallMs, audioSeconds)
}

async function repeat<T>(times: number, run: () => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let i = 0; i < times; i++) results.push(await run())
  return results
}

export async function measureSpeaker(speak: Speaker): Promise<SpeakerMeasurements> {
  await repeat(WARMUP_RUNS, () => speak(TWO_SENTENCES))
  const short = await repeat(FIRST_AUDIO_RUNS, () => speak(TWO_SENTENCES))
  const firstAudioMs = short.map((t) => t.firstAudioMs)
  const sentences = medianRun(await repeat(RTF_REPEATS, () => speakSentences(speak)), (r) => r.rtf)
  const paragraph = medianRun(await repeat(RTF_REPEATS, () => speak(THOUSAND_WORDS)), (t) => t.totalMs)
  return {
    firstAudio: { medianMs: median(firstAudioMs), p95Ms: quantile(firstAudioMs, 0.95), runs: short.length },
    twoSentenceTotalMs: median(short.map((t) => t.totalMs)),
    sentences,
    paragraph: { ...realTimeFactor(paragraph.totalMs, paragraph.audioSeconds), firstAudioMs: paragraph.firstAudioMs },
  }
}
