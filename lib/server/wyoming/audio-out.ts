/**
 * One `audio-start` … `audio-stop` of a connection: the engine's stretches of audio (whatever their
 * length) sent as chunks of a fixed number of samples, as the reference servers send them.
 */
import { audioChunk, audioStart, audioStop, type AudioFormat } from './events.js'
import type { WyomingEvent } from './framing.js'

/** Sends an event; resolves once the connection can take more. */
export type Send = (event: WyomingEvent) => Promise<void>

export class AudioOut {
  private started = false
  private held: Buffer = Buffer.alloc(0)
  private sentSamples = 0
  private readonly chunkBytes: number

  constructor(
    private readonly send: Send,
    private readonly format: AudioFormat,
    samplesPerChunk: number,
  ) {
    this.chunkBytes = samplesPerChunk * format.width * format.channels
  }

  /** Seconds of audio sent so far. */
  get seconds(): number {
    return this.sentSamples / this.format.rate
  }

  /** Starts the audio now (a text that speaks nothing still gets its start and stop). */
  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    await this.send(audioStart(this.format, 0))
  }

  async write(audio: Buffer): Promise<void> {
    if (audio.length === 0) return
    await this.start()
    this.held = this.held.length === 0 ? audio : Buffer.concat([this.held, audio])
    let offset = 0
    while (this.held.length - offset >= this.chunkBytes) {
      await this.sendChunk(this.held.subarray(offset, offset + this.chunkBytes))
      offset += this.chunkBytes
    }
    this.held = this.held.subarray(offset)
  }

  /** Sends what is held and the stop, when the audio was started. */
  async stop(): Promise<void> {
    if (!this.started) return
    if (this.held.length > 0) await this.sendChunk(this.held)
    this.held = Buffer.alloc(0)
    this.started = false
    await this.send(audioStop(this.timestamp()))
  }

  private async sendChunk(audio: Buffer): Promise<void> {
    const timestamp = this.timestamp()
    this.sentSamples += audio.length / (this.format.width * this.format.channels)
    await this.send(audioChunk(this.format, timestamp, audio))
  }

  /** Milliseconds from the start of this audio. */
  private timestamp(): number {
    return Math.floor((this.sentSamples * 1000) / this.format.rate)
  }
}
