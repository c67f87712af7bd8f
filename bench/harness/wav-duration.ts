/**
 * Audio length of a WAV file the CLIs wrote to stdout. The size fields are not trusted:
 * espeak-ng streams with placeholder sizes (0x7ffff000), so the data runs to the end of the file.
 */
export function wavDurationSeconds(wav: Buffer): number {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE stream')
  }
  let byteRate: number | undefined
  for (let at = 12; at + 8 <= wav.length; ) {
    const id = wav.toString('ascii', at, at + 4)
    const size = wav.readUInt32LE(at + 4)
    if (id === 'fmt ') byteRate = wav.readUInt32LE(at + 16)
    if (id === 'data') {
      if (byteRate === undefined) throw new Error('WAV data chunk before its fmt chunk')
      return (wav.length - (at + 8)) / byteRate
    }
    at += 8 + size + (size % 2)
  }
  throw new Error('WAV stream has no data chunk')
}
