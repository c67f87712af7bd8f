// A clone sample from the microphone: its samples are taken straight from Web Audio (an
// AudioWorklet) and kept as a 16-bit WAV, so the service gets the sound as the microphone gave
// it, with no codec in between (MediaRecorder's WebM/Opus is not a format the service reads).

import { wavFromSamples } from './wav.js'

/** The service clones from at least this much speech. */
export const MIN_SECONDS = 3

/** The capture processor, loaded once into the page's AudioContext. */
const loaded = new WeakMap()

export class MicRecorder {
  #context
  #stream
  #source
  #capture
  #mute
  #parts = []
  #frames = 0
  #timer

  /** Starts recording through `context` (running, or resumed inside a click); onTick(seconds) is called as it goes. */
  async start(context, onTick) {
    this.#context = context
    if (!loaded.has(context)) loaded.set(context, context.audioWorklet.addModule(new URL('capture.js', import.meta.url)))
    await loaded.get(context)
    this.#stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false } })
    this.#parts = []
    this.#frames = 0
    try {
      this.#source = context.createMediaStreamSource(this.#stream)
      this.#capture = new AudioWorkletNode(context, 'svc-tts-capture')
      this.#capture.port.onmessage = ({ data }) => {
        this.#parts.push(data)
        this.#frames += data.length
      }
      // Web Audio runs a node only when something downstream pulls it: a silent path to the output.
      this.#mute = new GainNode(context, { gain: 0 })
      this.#source.connect(this.#capture).connect(this.#mute).connect(context.destination)
    } catch (error) {
      this.#release()
      throw error
    }
    this.#timer = setInterval(() => onTick(this.seconds), 100)
    onTick(0)
  }

  /** Seconds of sound recorded so far. */
  get seconds() {
    return this.#context ? this.#frames / this.#context.sampleRate : 0
  }

  get recording() {
    return this.#stream !== undefined
  }

  /** Stops, gives the microphone back, and resolves to the recording as a WAV file. */
  async stop() {
    const sampleRate = this.#context.sampleRate
    this.#release()
    if (this.#frames === 0) throw new Error('nothing was recorded: the microphone sent no sound')
    const samples = new Float32Array(this.#frames)
    let offset = 0
    for (const part of this.#parts) {
      samples.set(part, offset)
      offset += part.length
    }
    return new File([wavFromSamples(samples, sampleRate)], 'recording.wav', { type: 'audio/wav' })
  }

  #release() {
    clearInterval(this.#timer)
    this.#source?.disconnect()
    this.#capture?.disconnect()
    this.#mute?.disconnect()
    if (this.#capture) this.#capture.port.onmessage = null
    for (const track of this.#stream?.getTracks() ?? []) track.stop()
    this.#stream = undefined
  }
}
