/** Which container the audio goes out in: `--format`, else the output file's extension, else WAV. */
import path from 'node:path'
import { CONTAINERS, type Container } from '../audio/format.js'
import { usageError } from './exit.js'

const FORMAT_BY_EXTENSION: Record<string, Container> = {
  '.wav': 'wav', '.raw': 'raw', '.pcm': 'raw', '.mp3': 'mp3', '.ogg': 'ogg', '.opus': 'ogg', '.flac': 'flac',
}

const LOSSY_FORMATS: readonly Container[] = ['mp3', 'ogg']

/**
 * `out` is a file name, `-` (stdout) or absent (--play only). Stdout and playing default to WAV,
 * so `svc-tts say hi --out - > x.wav` is a WAV; a file name must say its format (or --format must).
 */
export function chooseFormat(out: string | undefined, format: string | undefined): Container {
  if (format !== undefined) {
    if (!(CONTAINERS as readonly string[]).includes(format)) throw usageError(`--format must be one of ${CONTAINERS.join(', ')}`)
    return format as Container
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
export function parseBitRate(value: string | undefined, format: Container): number | undefined {
  if (value === undefined) return undefined
  if (!LOSSY_FORMATS.includes(format)) throw usageError(`--bit-rate is for ${LOSSY_FORMATS.join(' and ')} output, not ${format}`)
  const match = /^(\d+(?:\.\d+)?)(k?)$/i.exec(value.trim())
  if (!match) throw usageError(`--bit-rate must be bits per second, like 128000 or 128k (got '${value}')`)
  return Math.round(Number(match[1]) * (match[2] ? 1000 : 1))
}
