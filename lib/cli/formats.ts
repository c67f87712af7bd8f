/** Which container the audio goes out in: `--format`, else the output file's extension, else WAV. */
import path from 'node:path'
import { usageError } from './exit.js'

export const CLI_FORMATS = ['wav', 'raw', 'mp3', 'ogg', 'flac'] as const
export type CliFormat = (typeof CLI_FORMATS)[number]

const FORMAT_BY_EXTENSION: Record<string, CliFormat> = {
  '.wav': 'wav', '.raw': 'raw', '.pcm': 'raw', '.mp3': 'mp3', '.ogg': 'ogg', '.opus': 'ogg', '.flac': 'flac',
}

/** Formats the engine encodes itself (the CLI adds the WAV header to raw PCM for the others). */
export const COMPRESSED_FORMATS: readonly CliFormat[] = ['mp3', 'ogg', 'flac']
const LOSSY_FORMATS: readonly CliFormat[] = ['mp3', 'ogg']

/**
 * `out` is a file name, `-` (stdout) or absent (--play only). Stdout and playing default to WAV,
 * so `svc-tts say hi --out - > x.wav` is a WAV; a file name must say its format (or --format must).
 */
export function chooseFormat(out: string | undefined, format: string | undefined): CliFormat {
  if (format !== undefined) {
    if (!(CLI_FORMATS as readonly string[]).includes(format)) throw usageError(`--format must be one of ${CLI_FORMATS.join(', ')}`)
    return format as CliFormat
  }
  if (out === undefined || out === '-') return 'wav'
  const extension = path.extname(out).toLowerCase()
  const fromExtension = FORMAT_BY_EXTENSION[extension]
  if (!fromExtension) {
    throw usageError(`cannot tell the format of '${out}' from its extension: name it ${Object.keys(FORMAT_BY_EXTENSION).join(' ')} or give --format`)
  }
  return fromExtension
}

/** `--bit-rate 96k` or `96000`, in bits per second; only the lossy formats take one. */
export function parseBitRate(value: string | undefined, format: CliFormat): number | undefined {
  if (value === undefined) return undefined
  if (!LOSSY_FORMATS.includes(format)) throw usageError(`--bit-rate is for ${LOSSY_FORMATS.join(' and ')} output, not ${format}`)
  const match = /^(\d+(?:\.\d+)?)(k?)$/i.exec(value.trim())
  if (!match) throw usageError(`--bit-rate must be bits per second, like 128000 or 128k (got '${value}')`)
  return Math.round(Number(match[1]) * (match[2] ? 1000 : 1))
}
