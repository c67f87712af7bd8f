/** `--play`: the first audio player found on PATH, and how to hand it streamed audio on its stdin. */
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'
import type { Encoding, OutputFormat } from '../audio/format.js'
import { TtsError } from '../errors.js'

export interface Player {
  name: string
  path: string
  args: string[]
  /** What it reads: a streamed WAV, or raw PCM described by its arguments. */
  input: 'wav' | 'raw'
}

/** PulseAudio's names of our encodings. */
const PULSE_FORMAT: Record<Encoding, string> = { pcm_s16le: 's16le', pcm_f32le: 'float32le', pcm_mulaw: 'ulaw', pcm_alaw: 'alaw' }

/** In order of preference: ALSA, PulseAudio (or PipeWire's pulse), ffmpeg, sox. */
const PLAYERS: readonly { name: string; input: Player['input']; args: (format: Pick<OutputFormat, 'encoding' | 'sample_rate'>) => string[] }[] = [
  { name: 'aplay', input: 'wav', args: () => ['-q'] },
  // paplay gets raw PCM with its format in the arguments: no reliance on how libsndfile takes a WAV from a pipe.
  { name: 'paplay', input: 'raw', args: (f) => ['--raw', `--format=${PULSE_FORMAT[f.encoding]}`, `--rate=${f.sample_rate}`, '--channels=1'] },
  { name: 'ffplay', input: 'wav', args: () => ['-nodisp', '-autoexit', '-loglevel', 'error', '-i', 'pipe:0'] },
  // sox's play would stop at the streamed header's (unknown, 0xFFFFFFFF) length without --ignore-length.
  { name: 'play', input: 'wav', args: () => ['-q', '--ignore-length', '-t', 'wav', '-'] },
]

function executableOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue
    const candidate = path.join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not here: the next directory
    }
  }
  return undefined
}

export function findPlayer(format: Pick<OutputFormat, 'encoding' | 'sample_rate'>, searchPath = process.env.PATH ?? ''): Player {
  for (const player of PLAYERS) {
    const found = executableOnPath(player.name, searchPath)
    if (found) return { name: player.name, path: found, args: player.args(format), input: player.input }
  }
  throw new TtsError(
    'PLAYER_NOT_FOUND',
    `--play needs an audio player on PATH: one of ${PLAYERS.map((p) => p.name).join(', ')} ` +
      '(Debian: apt-get install alsa-utils, pulseaudio-utils, ffmpeg or sox)',
  )
}
