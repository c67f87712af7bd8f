/**
 * The one reader of a WAV file's RIFF chunks: its format, and where its `fact` count and its
 * `data` chunk are. Sizes are given as the file says them: a streamed WAV says 0xFFFFFFFF (or, from
 * espeak-ng, 0x7FFFF000) until its length is known, so callers decide whether to trust `dataSize`.
 */
export interface WavHeader {
  formatTag: number
  channels: number
  sampleRate: number
  byteRate: number
  blockAlign: number
  bitsPerSample: number
  /** Where the `data` chunk's bytes start, and the size its header gives. */
  dataOffset: number
  dataSize: number
  /** Offset of the `fact` chunk's sample count, when there is one. */
  factCountAt?: number
}

/** The header of the WAV that `file` starts with; throws Error saying why when there is none in it. */
export function readWavHeader(file: Buffer): WavHeader {
  if (file.length < 12 || file.toString('latin1', 0, 4) !== 'RIFF' || file.toString('latin1', 8, 12) !== 'WAVE') {
    throw new Error('it does not start with RIFF....WAVE')
  }
  let format: Omit<WavHeader, 'dataOffset' | 'dataSize' | 'factCountAt'> | undefined
  let factCountAt: number | undefined
  for (let at = 12; at + 8 <= file.length; ) {
    const id = file.toString('latin1', at, at + 4)
    const size = file.readUInt32LE(at + 4)
    const body = at + 8
    if (id === 'fmt ' && body + 16 <= file.length) {
      format = {
        formatTag: file.readUInt16LE(body),
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        byteRate: file.readUInt32LE(body + 8),
        blockAlign: file.readUInt16LE(body + 12),
        bitsPerSample: file.readUInt16LE(body + 14),
      }
    } else if (id === 'fact') {
      factCountAt = body
    } else if (id === 'data') {
      if (!format) throw new Error('its data chunk comes before fmt')
      return { ...format, dataOffset: body, dataSize: size, ...(factCountAt !== undefined && { factCountAt }) }
    }
    at = body + size + (size % 2)  // chunks are padded to an even length
  }
  throw new Error(`no data chunk in its first ${file.length} bytes`)
}
