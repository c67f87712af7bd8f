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

const MP3_KBPS = { v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160] }
const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] }

/**
 * The byte offsets where a unit of the format starts (MP3 frames, Ogg pages), read from their
 * headers, plus the end of the file: where a stream may be cut and still decode whole.
 */
export function unitStarts(file: Buffer, container: 'mp3' | 'ogg'): Set<number> {
  const starts = new Set<number>()
  let at = 0
  while (at < file.length) {
    starts.add(at)
    if (container === 'ogg') {
      if (file.toString('ascii', at, at + 4) !== 'OggS') throw new Error(`no Ogg page at ${at}`)
      const segments = file[at + 26]!
      let body = 0
      for (let i = 0; i < segments; i++) body += file[at + 27 + i]!
      at += 27 + segments + body
    } else {
      if (file[at] !== 0xff || (file[at + 1]! & 0xe0) !== 0xe0) throw new Error(`no MP3 frame at ${at}`)
      const version = (file[at + 1]! >> 3) & 3
      const kbps = (version === 3 ? MP3_KBPS.v1 : MP3_KBPS.v2)[file[at + 2]! >> 4]!
      const rate = MP3_RATES[version]![(file[at + 2]! >> 2) & 3]!
      const padding = (file[at + 2]! >> 1) & 1
      at += Math.floor(((version === 3 ? 144000 : 72000) * kbps) / rate) + padding
    }
  }
  if (at !== file.length) throw new Error(`the last unit runs past the end (${at} > ${file.length})`)
  starts.add(at)
  return starts
}
