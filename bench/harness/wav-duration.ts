import { readWavHeader } from '../../lib/audio/riff.js'

/**
 * Audio length of a WAV file the CLIs wrote to stdout. The size fields are not trusted:
 * espeak-ng streams with placeholder sizes (0x7ffff000), so the data runs to the end of the file.
 */
export function wavDurationSeconds(wav: Buffer): number {
  const header = readWavHeader(wav)
  return (wav.length - header.dataOffset) / header.byteRate
}
