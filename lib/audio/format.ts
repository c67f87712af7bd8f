export const ENCODINGS = ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw'] as const
export const SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const
export const CONTAINERS = ['raw', 'wav'] as const

export type Encoding = (typeof ENCODINGS)[number]
export type Container = (typeof CONTAINERS)[number]
export type SampleRate = (typeof SAMPLE_RATES)[number]

export interface OutputFormat {
  container: Container
  encoding: Encoding
  sample_rate: SampleRate
}

export const BYTES_PER_SAMPLE: Record<Encoding, number> = { pcm_s16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 }

// WAVE format tags: PCM, IEEE float, A-law, mu-law.
const WAVE_FORMAT: Record<Encoding, number> = { pcm_s16le: 1, pcm_f32le: 3, pcm_alaw: 6, pcm_mulaw: 7 }

/** Size fields a streamed WAV carries before its length is known (the common "unknown length" convention). */
export const UNKNOWN_WAV_LENGTH = 0xffffffff

/**
 * A WAV header for mono audio: the 44-byte canonical form for pcm_s16le; for the other encodings
 * (float, A-law, mu-law) the 18-byte fmt chunk and the `fact` chunk the format requires.
 * With `dataBytes` unknown (streaming), the size fields are 0xFFFFFFFF, which sox
 * (--ignore-length), ffmpeg and browsers read to the end.
 */
export function wavHeader(format: Pick<OutputFormat, 'encoding' | 'sample_rate'>, dataBytes?: number): Buffer {
  const width = BYTES_PER_SAMPLE[format.encoding]
  const extended = format.encoding !== 'pcm_s16le'
  const fmtSize = extended ? 18 : 16
  const headerSize = 12 + 8 + fmtSize + (extended ? 12 : 0) + 8
  const header = Buffer.alloc(headerSize)
  const known = dataBytes !== undefined
  let at = header.write('RIFF', 0, 'ascii')
  at = header.writeUInt32LE(known ? headerSize - 8 + dataBytes : UNKNOWN_WAV_LENGTH, at)
  at += header.write('WAVE', at, 'ascii')
  at += header.write('fmt ', at, 'ascii')
  at = header.writeUInt32LE(fmtSize, at)
  at = header.writeUInt16LE(WAVE_FORMAT[format.encoding], at)
  at = header.writeUInt16LE(1, at)
  at = header.writeUInt32LE(format.sample_rate, at)
  at = header.writeUInt32LE(format.sample_rate * width, at)
  at = header.writeUInt16LE(width, at)
  at = header.writeUInt16LE(width * 8, at)
  if (extended) {
    at = header.writeUInt16LE(0, at)  // cbSize: no extension
    at += header.write('fact', at, 'ascii')
    at = header.writeUInt32LE(4, at)
    at = header.writeUInt32LE(known ? dataBytes / width : UNKNOWN_WAV_LENGTH, at)
  }
  at += header.write('data', at, 'ascii')
  header.writeUInt32LE(known ? dataBytes : UNKNOWN_WAV_LENGTH, at)
  return header
}
