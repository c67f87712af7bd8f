// A clone sample from the microphone: MediaRecorder records (Chromium writes WebM/Opus, which the
// service does not read), then the recording is decoded by the browser and kept as a 16-bit WAV.

import { wavFromAudioBuffer } from './wav.js'

/** The service clones from at least this much speech. */
export const MIN_SECONDS = 3

export class MicRecorder {
  #stream
  #recorder
  #parts = []
  #started = 0
  #timer

  /** Starts recording; onTick(seconds) is called as it goes. */
  async start(onTick) {
    this.#stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false } })
    this.#recorder = new MediaRecorder(this.#stream)
    this.#parts = []
    this.#recorder.addEventListener('dataavailable', (event) => this.#parts.push(event.data))
    this.#recorder.start(250)
    this.#started = performance.now()
    this.#timer = setInterval(() => onTick(this.seconds), 100)
    onTick(0)
  }

  get seconds() {
    return this.#started ? (performance.now() - this.#started) / 1000 : 0
  }

  get recording() {
    return this.#recorder?.state === 'recording'
  }

  /** Stops, releases the microphone, and resolves to the recording as a WAV file. */
  async stop(context) {
    clearInterval(this.#timer)
    const stopped = new Promise((resolve) => this.#recorder.addEventListener('stop', resolve, { once: true }))
    this.#recorder.stop()
    for (const track of this.#stream.getTracks()) track.stop()
    await stopped
    this.#started = 0
    const recorded = new Blob(this.#parts, { type: this.#recorder.mimeType })
    const decoded = await context.decodeAudioData(await recorded.arrayBuffer())
    return new File([wavFromAudioBuffer(decoded)], 'recording.wav', { type: 'audio/wav' })
  }

  /** Gives the microphone back without keeping anything. */
  cancel() {
    clearInterval(this.#timer)
    if (this.recording) this.#recorder.stop()
    for (const track of this.#stream?.getTracks() ?? []) track.stop()
    this.#started = 0
  }
}
