// WAV files made in the browser: a header over PCM exactly as the service sent it, and a
// recording (an AudioBuffer) as 16-bit mono PCM for a clone sample.

export const BYTES_PER_SAMPLE = { pcm_s16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 }
// WAVE format tags: PCM, IEEE float, A-law, mu-law.
const FORMAT_TAGS = { pcm_s16le: 1, pcm_f32le: 3, pcm_alaw: 6, pcm_mulaw: 7 }

function header(dataBytes, encoding, sampleRate) {
  const bytesPerSample = BYTES_PER_SAMPLE[encoding]
  const view = new DataView(new ArrayBuffer(44))
  const text = (offset, value) => [...value].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)))
  text(0, 'RIFF')
  view.setUint32(4, 36 + dataBytes, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, FORMAT_TAGS[encoding], true)
  view.setUint16(22, 1, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * bytesPerSample, true)
  view.setUint16(32, bytesPerSample, true)
  view.setUint16(34, bytesPerSample * 8, true)
  text(36, 'data')
  view.setUint32(40, dataBytes, true)
  return view.buffer
}

/** The received mono PCM chunks (Uint8Arrays) as one WAV file. */
export function wavFromPcm(chunks, encoding, sampleRate) {
  const dataBytes = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0)
  return new Blob([header(dataBytes, encoding, sampleRate), ...chunks], { type: 'audio/wav' })
}

/** A decoded recording, its channels mixed to one, as a 16-bit WAV file. */
export function wavFromAudioBuffer(buffer) {
  const samples = new Int16Array(buffer.length)
  const channels = Array.from({ length: buffer.numberOfChannels }, (_, i) => buffer.getChannelData(i))
  for (let i = 0; i < buffer.length; i++) {
    let sum = 0
    for (const channel of channels) sum += channel[i]
    const value = Math.max(-1, Math.min(1, sum / channels.length))
    samples[i] = value < 0 ? value * 0x8000 : value * 0x7fff
  }
  return new Blob([header(samples.byteLength, 'pcm_s16le', buffer.sampleRate), samples.buffer], { type: 'audio/wav' })
}
