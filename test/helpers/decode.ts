/** Compressed audio read back by ffmpeg, as a user's player would read it. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { s16 } from './audio.js'

const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-decode-'))
let files = 0

export interface Decoded {
  codec: string
  sampleRate: number
  /** Mono 16-bit samples at the stream's own rate. */
  samples: Int16Array
  /** What ffmpeg said at level `error`: empty when the file decoded cleanly. */
  errors: string
}

/** Decodes a whole file (`extension`: mp3, ogg or flac) with ffmpeg, at the stream's own rate. */
export function ffmpegDecode(file: Buffer, extension: string): Decoded {
  const name = path.join(dir, `${files++}.${extension}`)
  writeFileSync(name, file)
  const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate', '-of', 'csv=p=0', name], { encoding: 'utf8' })
  const [codec = '', rate = '0'] = probe.stdout.trim().split(',')
  const decoded = spawnSync('ffmpeg', ['-v', 'error', '-i', name, '-f', 's16le', '-ac', '1', '-'], { maxBuffer: 1 << 28 })
  if (decoded.status !== 0) throw new Error(`ffmpeg failed on ${name}: ${decoded.stderr.toString()}`)
  return { codec, sampleRate: Number(rate), samples: s16(decoded.stdout), errors: probe.stderr + decoded.stderr.toString() }
}

/** The level in dB (relative to full scale) of 16-bit samples. */
export function levelDb(samples: Int16Array): number {
  let sum = 0
  for (const x of samples) sum += x * x
  return 10 * Math.log10(sum / Math.max(1, samples.length) / 32768 ** 2)
}
