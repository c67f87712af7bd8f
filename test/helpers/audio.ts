/** Reading back what the engine produced, for assertions on real audio. */
import { readWavHeader } from '../../lib/audio/riff.js'

export interface DecodedWav {
  formatTag: number
  channels: number
  sampleRate: number
  bitsPerSample: number
  dataSize: number
  data: Buffer
}

export function decodeWav(file: Buffer): DecodedWav {
  const header = readWavHeader(file)
  const end = header.dataSize === 0xffffffff ? file.length : header.dataOffset + header.dataSize
  const { formatTag, channels, sampleRate, bitsPerSample, dataSize } = header
  return { formatTag, channels, sampleRate, bitsPerSample, dataSize, data: file.subarray(header.dataOffset, end) }
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
