/**
 * One job's synthesis on a worker: its speech as PCM appended to the job's file, and after each
 * finished chunk what is done (chunks, bytes, characters, samples) committed to the job in Redis.
 * A worker that takes a job up again (its first worker died) cuts the file to the committed bytes
 * and speaks on from the committed chunk (engine.speakFrom): each chunk's audio depends on the
 * chunk alone, so the file ends byte-identical to one synthesis of the whole request.
 */
import type { FileHandle } from 'node:fs/promises'
import type { Engine } from '../../engine/engine.js'
import { isCompressed, pcmRate, type Encoding, type OutputFormat, type SampleRate } from '../../audio/format.js'
import type { ParsedSynthesisRequest } from '../../engine/requests.js'
import type { SpeechBounds } from '../../engine/speech.js'
import type { JobFiles } from './job-files.js'

/** How often a running job commits what it has done (and looks whether it was cancelled). */
const COMMIT_INTERVAL_MS = 100

/** What a job has done, as committed: its file holds `bytes` of finished chunks. */
export interface Done {
  chunks: number
  bytes: number
  /** Characters of the transcript spoken: through the last word of the last finished chunk. */
  characters: number
  samples: number
}

export const NOTHING_DONE: Done = { chunks: 0, bytes: 0, characters: 0, samples: 0 }

/** What is kept with a job in the queue. */
export interface JobData {
  keyId: string
  request: ParsedSynthesisRequest
  /** The output format with its defaults filled in: what the job's PCM and its container are. */
  format: OutputFormat
}

/**
 * The PCM a job's file holds: the requested encoding and rate, or for a compressed container what
 * its encoder takes (float at the codec's rate), encoded when the audio is read.
 */
export function pcmOf(format: OutputFormat): { encoding: Encoding; sample_rate: SampleRate } {
  // pcmRate gives the format's own rate, or 48 kHz (Opus's): both sample rates.
  return isCompressed(format) ? { encoding: 'pcm_f32le', sample_rate: pcmRate(format) as SampleRate } : { encoding: format.encoding, sample_rate: format.sample_rate }
}

/** The progress a job committed, or nothing done when it has none yet. */
export function doneOf(progress: unknown): Done {
  if (typeof progress !== 'object' || progress === null) return NOTHING_DONE
  const { chunks, bytes, characters, samples } = progress as Record<string, unknown>
  const whole = [chunks, bytes, characters, samples].every((value) => Number.isSafeInteger(value) && (value as number) >= 0)
  return whole ? (progress as Done) : NOTHING_DONE
}

export interface JobRun {
  id: string
  data: JobData
  done: Done
  engine: Engine<string>
  files: JobFiles
  /** The job's own bounds, in place of the engine's per-request ones. */
  bounds: SpeechBounds
  signal: AbortSignal
  /** Commits what is done; resolves true when the job was cancelled meanwhile. */
  commit(done: Done): Promise<boolean>
}

/** Runs the job from what it has done to its end; returns what it did, or undefined when it was cancelled. */
export async function synthesizeJob({ id, data, done: committed, engine, files, bounds, signal, commit }: JobRun): Promise<Done | undefined> {
  let done = committed
  let handle: FileHandle | undefined = await files.resume(id, done.bytes)
  if (!handle) {
    done = NOTHING_DONE
    handle = await files.restart(id)
  }
  const { transcript } = data.request
  const pcm = { ...data.request, output_format: { container: 'raw' as const, ...pcmOf(data.format) } }
  const stop = new AbortController()
  const speech = engine.speakFrom(pcm, done.chunks, { signal: AbortSignal.any([signal, stop.signal]), bounds })
  let { bytes, samples, characters } = done
  let lastCommit = Date.now()
  try {
    for await (const chunk of speech) {
      await handle.write(chunk.audio, 0, chunk.audio.length, bytes)
      bytes += chunk.audio.length
      samples += chunk.samples
      // Words come in transcript order: each is found after the one before.
      for (const word of chunk.words) {
        const at = transcript.indexOf(word.text, characters)
        if (at >= 0) characters = at + word.text.length
      }
      if (!chunk.endsChunk) continue
      done = { chunks: done.chunks + 1, bytes, characters, samples }
      if (Date.now() - lastCommit < COMMIT_INTERVAL_MS) continue
      lastCommit = Date.now()
      if (await commit(done)) {
        stop.abort()
        return undefined
      }
    }
    done = { ...done, bytes, samples, characters: transcript.length }
    return (await commit(done)) ? undefined : done
  } finally {
    await speech.return(undefined)
    await handle.close()
  }
}
