// WAV files made in the browser: a header over PCM exactly as the service sent it, and a
// recording's samples as 16-bit mono PCM for a clone sample.

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

/** Mono float samples (-1 to 1) as a 16-bit WAV file. */
export function wavFromSamples(floats, sampleRate) {
  const samples = new Int16Array(floats.length)
  for (let i = 0; i < floats.length; i++) {
    const value = Math.max(-1, Math.min(1, floats[i]))
    samples[i] = value < 0 ? value * 0x8000 : value * 0x7fff
  }
  return new Blob([header(samples.byteLength, 'pcm_s16le', sampleRate), samples.buffer], { type: 'audio/wav' })
}
