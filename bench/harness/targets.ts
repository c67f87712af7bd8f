/**
 * What each synthesizer should do against its command-line program (first chunk, real-time
 * factor, streaming before the text is done), checked against one run's figures. Each verdict says
 * what was measured, whether the target is met, and what in the engine drives the number.
 */
import { ms, rtf, times } from './format.js'
import type { HarnessResults, SubjectResults } from './measure-subjects.js'

export interface Verdict {
  target: string
  measured: string
  met: boolean
  /** What in the engine drives the figure, and by how much a miss misses. */
  reading: string
}

/** Streaming counts as streaming when the first audio of the 1000-word text comes within this share of the whole. */
const STREAMING_SHARE = 0.1

export function resultsFor(results: HarnessResults, subjectId: string): SubjectResults {
  const found = results.subjects.find((s) => s.subject.id === subjectId)
  if (!found) throw new Error(`no results for subject '${subjectId}'`)
  return found
}

function espeakFirstChunk(results: HarnessResults): Verdict[] {
  const native = resultsFor(results, 'espeak').engine.firstAudio
  const resampled = resultsFor(results, 'espeak-44k').engine.firstAudio
  const reading =
    'Chunk 0 is the first clause or first five words (lib/text/chunker.ts), so the first espeak_Synth call is short; ' +
    'the rest is request validation, planSpeech of the whole transcript on the main thread, and one hop from a pool thread back to the event loop.'
  return [
    {
      target: 'espeak-ng first chunk in-process ≤ 5 ms median (22.05 kHz, espeak-ng\'s own rate)',
      measured: `${ms(native.medianMs)} median, ${ms(native.p95Ms)} p95`,
      met: native.medianMs <= 5,
      reading: native.medianMs <= 5 ? reading : `Misses by ${ms(native.medianMs - 5)}. ${reading}`,
    },
    {
      target: 'the same at 44.1 kHz (soxr resampling)',
      measured: `${ms(resampled.medianMs)} median, ${ms(resampled.p95Ms)} p95`,
      met: resampled.medianMs <= 5,
      reading:
        `Resampling chunk 0 with soxr's HQ converter adds ${ms(resampled.medianMs - native.medianMs)} at the median` +
        (resampled.medianMs <= 5 ? '.' : `, missing the target by ${ms(resampled.medianMs - 5)}.`),
    },
  ]
}

function fliteFirstChunk(results: HarnessResults, subjectId: string, name: string): Verdict {
  const { engine, cli } = resultsFor(results, subjectId)
  const cliWhole = cli?.twoSentenceTotalMs ?? Number.NaN
  const met = engine.firstAudio.medianMs < cliWhole
  return {
    target: `flite ${name} first chunk earlier than the flite CLI's whole synthesis (two sentences)`,
    measured: `${ms(engine.firstAudio.medianMs)} median (${ms(engine.firstAudio.p95Ms)} p95) vs CLI ${ms(cliWhole)}`,
    met,
    reading: met
      ? `The engine speaks the first five words as their own utterance and hands them over while the rest is synthesised; the CLI synthesises everything before writing a byte.`
      : `Later by ${ms(engine.firstAudio.medianMs - cliWhole)}: chunk 0 is synthesised as one flite utterance, and flite runs its whole front end and parameter generation before the vocoder emits anything.`,
  }
}

function espeakRealTimeFactor(results: HarnessResults, subjectId: string, label: string): Verdict {
  const engine = resultsFor(results, subjectId).engine.paragraph
  const cli = resultsFor(results, 'espeak').cli?.paragraph
  const ratio = engine.rtf / (cli?.rtf ?? Number.NaN)
  const met = ratio <= 2
  const reading =
    'The engine calls espeak_Synth once per chunk (about 60 for this text) instead of once, with phoneme events on for word timings, ' +
    'converts every sample to float and back, and copies each chunk into a JS Buffer' +
    (subjectId === 'espeak-44k' ? '; at 44.1 kHz soxr\'s HQ resampler costs about as much as synthesis itself.' : '.')
  return {
    target: `espeak-ng real-time factor on 1000 words within 2× of the raw engine (the CLI)${label}`,
    measured: `${rtf(engine.rtf)} vs CLI ${rtf(cli?.rtf ?? Number.NaN)} (${times(ratio)})`,
    met,
    reading: met ? reading : `Misses: ${times(ratio)} where 2× is allowed. ${reading}`,
  }
}

function fliteStreams(results: HarnessResults, subjectId: string, name: string): Verdict {
  const { engine, cli } = resultsFor(results, subjectId)
  const share = engine.paragraph.firstAudioMs / engine.paragraph.wallMs
  const met = share <= STREAMING_SHARE
  return {
    target: `flite ${name} streams before the whole 1000-word text is done (first audio within ${STREAMING_SHARE * 100}% of the whole)`,
    measured:
      `first chunk ${ms(engine.paragraph.firstAudioMs)} of ${ms(engine.paragraph.wallMs)} (${(share * 100).toFixed(1)}%); ` +
      `CLI first audio (file) ${ms(cli?.paragraph.firstAudioMs ?? Number.NaN)} of ${ms(cli?.paragraph.wallMs ?? Number.NaN)}`,
    met,
    reading: 'Each chunk is its own utterance, delivered as soon as it is done; the CLI writes the WAV only after the whole text.',
  }
}

export function checkTargets(results: HarnessResults): Verdict[] {
  return [
    ...espeakFirstChunk(results),
    fliteFirstChunk(results, 'slt', 'slt'),
    fliteFirstChunk(results, 'kal16', 'kal16'),
    espeakRealTimeFactor(results, 'espeak', ''),
    espeakRealTimeFactor(results, 'espeak-44k', ', at 44.1 kHz'),
    fliteStreams(results, 'slt', 'slt'),
    fliteStreams(results, 'kal16', 'kal16'),
  ]
}
