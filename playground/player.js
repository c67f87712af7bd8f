// Gapless playback of PCM chunks as they arrive: each chunk becomes an AudioBuffer scheduled to
// start where the one before ends. When a chunk comes late (the schedule ran dry) playback
// resumes a little after now, and that jump is remembered, so a position in the audio (a word's
// timestamp) still maps to the moment it is heard.

import { BYTES_PER_SAMPLE } from './wav.js'

/** How far ahead of now a chunk is scheduled when nothing is queued: room for the main thread to stutter. */
const LEAD_SECONDS = 0.06

let sharedContext

/**
 * One AudioContext for the page, made and resumed inside a click (browsers start audio only from
 * a gesture). Not awaited: chunks scheduled while it resumes play once it runs, and the socket
 * opens meanwhile, so the time to first audio is the service's, not the audio device's.
 */
export function audioContext() {
  sharedContext ??= new AudioContext({ latencyHint: 'interactive' })
  if (sharedContext.state !== 'running') sharedContext.resume().catch(() => {})
  return sharedContext
}

function g711(byte, alaw) {
  const value = ~byte & 0xff
  if (!alaw) {
    const magnitude = ((((value & 0x0f) << 3) + 0x84) << ((value & 0x70) >> 4)) - 0x84
    return (value & 0x80 ? -magnitude : magnitude) / 32768
  }
  const a = byte ^ 0x55
  const exponent = (a & 0x70) >> 4
  let magnitude = (a & 0x0f) << 4
  magnitude = exponent === 0 ? magnitude + 8 : (magnitude + 0x108) << (exponent - 1)
  return (a & 0x80 ? magnitude : -magnitude) / 32768
}

/** Samples as floats from little-endian PCM bytes of `encoding`. */
function decode(bytes, encoding) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = bytes.byteLength / BYTES_PER_SAMPLE[encoding]
  const samples = new Float32Array(count)
  for (let i = 0; i < count; i++) {
    if (encoding === 'pcm_s16le') samples[i] = view.getInt16(i * 2, true) / 32768
    else if (encoding === 'pcm_f32le') samples[i] = view.getFloat32(i * 4, true)
    else samples[i] = g711(bytes[i], encoding === 'pcm_alaw')
  }
  return samples
}

export class Player {
  /** Samples scheduled so far (mono frames). */
  frames = 0
  #context
  #encoding
  #sampleRate
  #sources = new Set()
  /** Where the next chunk starts, in the context's time. */
  #next = 0
  /** Stretches of audio played without a gap: where each starts in the audio and in the context's time. */
  #segments = []
  /** Bytes of a sample split across two chunks. */
  #remainder = new Uint8Array(0)

  constructor(context, encoding, sampleRate) {
    this.#context = context
    this.#encoding = encoding
    this.#sampleRate = sampleRate
  }

  get audioSeconds() {
    return this.frames / this.#sampleRate
  }

  /** Schedules a chunk of PCM bytes; returns the frames it added. */
  schedule(bytes) {
    const size = BYTES_PER_SAMPLE[this.#encoding]
    const joined = new Uint8Array(this.#remainder.byteLength + bytes.byteLength)
    joined.set(this.#remainder)
    joined.set(bytes, this.#remainder.byteLength)
    const whole = joined.byteLength - (joined.byteLength % size)
    this.#remainder = joined.slice(whole)
    if (whole === 0) return 0
    const samples = decode(joined.subarray(0, whole), this.#encoding)
    const buffer = this.#context.createBuffer(1, samples.length, this.#sampleRate)
    buffer.copyToChannel(samples, 0)
    const source = this.#context.createBufferSource()
    source.buffer = buffer
    source.connect(this.#context.destination)
    const earliest = this.#context.currentTime + LEAD_SECONDS
    const at = Math.max(this.#next, earliest)
    if (this.#segments.length === 0 || at > this.#next) this.#segments.push({ audioStart: this.audioSeconds, contextStart: at })
    source.start(at)
    this.#sources.add(source)
    source.onended = () => this.#sources.delete(source)
    this.#next = at + buffer.duration
    this.frames += samples.length
    return samples.length
  }

  /** Where playback is now, in seconds of the audio; undefined before the first chunk is heard. */
  position() {
    const now = this.#context.currentTime
    let position
    for (const [i, segment] of this.#segments.entries()) {
      if (segment.contextStart > now) break
      const end = this.#segments[i + 1]?.audioStart ?? this.audioSeconds
      position = Math.min(segment.audioStart + (now - segment.contextStart), end)
    }
    return position
  }

  /** Whether everything scheduled has been played. */
  get finished() {
    return this.#context.currentTime >= this.#next
  }

  /** Silences what is scheduled and playing. */
  stop() {
    for (const source of this.#sources) {
      source.onended = null
      source.stop()
      source.disconnect()
    }
    this.#sources.clear()
    this.#next = 0
  }
}
