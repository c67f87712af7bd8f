/** Reading back what the engine produced, for assertions on real audio. */

export interface DecodedWav {
  formatTag: number
  channels: number
  sampleRate: number
  bitsPerSample: number
  dataSize: number
  data: Buffer
}

export function decodeWav(file: Buffer): DecodedWav {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file')
  let offset = 12
  let fmt: Omit<DecodedWav, 'dataSize' | 'data'> | undefined
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4)
    const size = file.readUInt32LE(offset + 4)
    const body = offset + 8
    if (id === 'fmt ') {
      fmt = {
        formatTag: file.readUInt16LE(body),
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        bitsPerSample: file.readUInt16LE(body + 14),
      }
    } else if (id === 'data') {
      if (!fmt) throw new Error('data before fmt')
      const end = size === 0xffffffff ? file.length : body + size
      return { ...fmt, dataSize: size, data: file.subarray(body, end) }
    }
    offset = body + size
  }
  throw new Error('no data chunk')
}

export function s16(pcm: Buffer): Int16Array {
  const copy = Buffer.from(pcm)  // aligned copy
  return new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2)
}

export function rms(samples: ArrayLike<number>, start = 0, end = samples.length): number {
  let sum = 0
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / Math.max(1, end - start))
}

/** The runs of exact digital zeros at least `minLength` samples long, as [start, end) pairs. */
export function zeroRuns(samples: ArrayLike<number>, minLength: number): [number, number][] {
  const runs: [number, number][] = []
  let start = -1
  for (let i = 0; i <= samples.length; i++) {
    const zero = i < samples.length && samples[i] === 0
    if (zero && start < 0) start = i
    if (!zero && start >= 0) {
      if (i - start >= minLength) runs.push([start, i])
      start = -1
    }
  }
  return runs
}
