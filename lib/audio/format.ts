export const ENCODINGS = ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw'] as const
export const SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const
export const CONTAINERS = ['raw', 'wav', 'mp3', 'ogg', 'flac'] as const
/** Containers whose audio a native encoder compresses: MP3, Ogg Opus, FLAC. */
export const COMPRESSED_CONTAINERS = ['mp3', 'ogg', 'flac'] as const
/**
 * What `encoding` means in a compressed container: the precision of the samples fed to the
 * encoder (16-bit, or float; FLAC stores 16 or 24 bits). G.711 has no place there.
 */
export const COMPRESSED_ENCODINGS = ['pcm_s16le', 'pcm_f32le'] as const

export type Encoding = (typeof ENCODINGS)[number]
export type Container = (typeof CONTAINERS)[number]
export type CompressedContainer = (typeof COMPRESSED_CONTAINERS)[number]
export type SampleRate = (typeof SAMPLE_RATES)[number]

export interface OutputFormat {
  container: Container
  encoding: Encoding
  sample_rate: SampleRate
  /** mp3 and ogg only: the encoder's bit rate in bits per second (a default when not asked). */
  bit_rate?: number
}

export function isCompressed<F extends { container: Container }>(format: F): format is F & { container: CompressedContainer } {
  return (COMPRESSED_CONTAINERS as readonly string[]).includes(format.container)
}

/** The media type of each container, for HTTP answers. */
export const CONTENT_TYPES: Record<Container, string> = {
  raw: 'application/octet-stream',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg; codecs=opus',
  flac: 'audio/flac',
}

/**
 * MP3 (layer III) bit rates: MPEG-1 at 32 kHz and up, MPEG-2 at 16 to 24 kHz, MPEG-2.5 below,
 * where LAME stops at 64 kb/s. LAME takes exactly these.
 */
const MP3_BIT_RATES_MPEG1 = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320].map((k) => k * 1000)
const MP3_BIT_RATES_MPEG2 = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160].map((k) => k * 1000)
const MP3_BIT_RATES_MPEG25 = MP3_BIT_RATES_MPEG2.filter((rate) => rate <= 64000)

export function mp3BitRates(sampleRate: number): readonly number[] {
  return sampleRate >= 32000 ? MP3_BIT_RATES_MPEG1 : sampleRate >= 16000 ? MP3_BIT_RATES_MPEG2 : MP3_BIT_RATES_MPEG25
}

/** libopus takes 500 to 512 000 bits/s; below 6 kb/s nothing intelligible is left of speech. */
export const OPUS_BIT_RATE_RANGE = { min: 6000, max: 510_000 } as const

/** The bit rate a lossy container gets when the request names none. */
export function defaultBitRate(container: 'mp3' | 'ogg', sampleRate: number): number {
  if (container === 'ogg') return 32000  // Opus: near-transparent mono speech
  return sampleRate >= 32000 ? 128000 : sampleRate > 8000 ? 64000 : 32000
}

/** The input rates libopus encodes at. */
export const OPUS_RATES = [8000, 12000, 16000, 24000, 48000] as const

/**
 * The rate the speech is synthesised at before it is encoded: the requested rate, except that
 * Opus, which cannot take 22 050 or 44 100 Hz, gets 48 kHz (one band-limited resampling, from
 * the voice's own rate); its header still names the requested rate as the input's.
 */
export function pcmRate(format: Pick<OutputFormat, 'container' | 'sample_rate'>): number {
  if (format.container === 'ogg' && !(OPUS_RATES as readonly number[]).includes(format.sample_rate)) return 48000
  return format.sample_rate
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

/**
 * A FLAC file made as a stream says "total samples unknown" in its STREAMINFO; once the whole file
 * is known, it can say how long it is (players then show the duration). Returns `file`, changed.
 */
export function setFlacTotalSamples(file: Buffer, totalSamples: number): Buffer {
  // "fLaC", a 4-byte block header, then STREAMINFO, whose bytes 10-17 hold (big-endian) 20 bits
  // of sample rate, 3 of channels, 5 of bits per sample and 36 of total samples.
  const at = 4 + 4 + 10
  if (file.toString('ascii', 0, 4) !== 'fLaC' || (file[4]! & 0x7f) !== 0 || file.length < at + 8) throw new Error('not a FLAC stream')
  const field = file.readBigUInt64BE(at)
  file.writeBigUInt64BE((field & ~0xfffffffffn) | (BigInt(totalSamples) & 0xfffffffffn), at)
  return file
}
