/**
 * Compressed audio on a speech session: the session's float PCM goes, chunk by chunk and in
 * order, through a native encoder on the worker pool (MP3, Ogg Opus or FLAC). Each chunk read
 * carries what the encoder made of it, so the bytes read so far always form a decodable file
 * (headers in the first chunk); the last chunk carries the encoder's tail.
 */
import { pcmRate, type CompressedContainer, type OutputFormat } from '../audio/format.js'
import { fromNativeError, type NativeAddon, type NativeAudioEncoder, type NativeEncoderConfig } from '../native.js'
import type { SpeechChunk, SpeechSession } from './speech-session.js'

const CODECS: Record<CompressedContainer, NativeEncoderConfig['codec']> = { mp3: 'mp3', ogg: 'opus', flac: 'flac' }

/** The native encoder's settings for a checked output format (parseOutputFormat). */
export function encoderConfig(format: OutputFormat & { container: CompressedContainer }): NativeEncoderConfig {
  const sampleRate = pcmRate(format)
  return {
    codec: CODECS[format.container],
    sampleRate,
    bitsPerSample: format.encoding === 'pcm_f32le' ? 24 : 16,
    ...(format.bit_rate !== undefined && { bitRate: format.bit_rate }),
    ...(sampleRate !== format.sample_rate && { headerSampleRate: format.sample_rate }),
  }
}

export function createEncoder(native: NativeAddon, format: OutputFormat & { container: CompressedContainer }): NativeAudioEncoder {
  try {
    return new native.AudioEncoder(encoderConfig(format))
  } catch (cause) {
    throw fromNativeError(cause, 'the audio encoder could not start')
  }
}

/**
 * A session whose chunks carry compressed audio. `samples` and `offsetSamples` still count the
 * speech a chunk covers (at the rate it was synthesised at); its bytes lag that speech by what
 * the encoder holds back (a frame or so), and come out at the latest with the last chunk.
 */
export class EncodedSpeechSession implements SpeechSession {
  constructor(
    private readonly pcm: SpeechSession,
    private readonly encoder: NativeAudioEncoder,
    private readonly native: Pick<NativeAddon, 'releaseBuffer'>,
  ) {}

  write(text: string): void {
    this.pcm.write(text)
  }

  flush(): void {
    this.pcm.flush()
  }

  end(): void {
    this.pcm.end()
  }

  abort(reason?: unknown): void {
    this.pcm.abort(reason)
  }

  [Symbol.asyncIterator](): AsyncIterator<SpeechChunk> {
    return this.encoded(this.pcm[Symbol.asyncIterator]())  // a second read throws here, as the session's does
  }

  private async *encoded(pcm: AsyncIterator<SpeechChunk>): AsyncGenerator<SpeechChunk> {
    // Speech the encoder kept whole for later (no bytes, no words) is counted into the next chunk,
    // and so is the end of a chunk it held.
    let held: { samples: number; offsetSamples: number; endsChunk: boolean } | undefined
    let endSamples = 0
    for await (const chunk of { [Symbol.asyncIterator]: () => pcm }) {
      const encoding = this.encoder.encode(chunk.audio)
      this.native.releaseBuffer(chunk.audio)  // the encoder has its own copy
      const audio = await this.run(encoding)
      const samples = (held?.samples ?? 0) + chunk.samples
      const offsetSamples = held?.offsetSamples ?? chunk.offsetSamples
      const endsChunk = (held?.endsChunk ?? false) || chunk.endsChunk
      held = undefined
      endSamples = chunk.offsetSamples + chunk.samples
      // A chunk that completes flushes goes out even empty: what the encoder holds is not the client's to wait for.
      if (audio.length > 0 || chunk.words.length > 0 || chunk.flushes) {
        yield { audio, samples, offsetSamples, words: chunk.words, endsChunk, ...(chunk.flushes && { flushes: chunk.flushes }) }
      } else held = { samples, offsetSamples, endsChunk }
    }
    const tail = await this.run(this.encoder.finish())
    if (tail.length > 0 || held) {
      yield { audio: tail, samples: held?.samples ?? 0, offsetSamples: held?.offsetSamples ?? endSamples, words: [], endsChunk: held?.endsChunk ?? false }
    }
  }

  private async run(call: Promise<Buffer>): Promise<Buffer> {
    try {
      return await call
    } catch (cause) {
      throw fromNativeError(cause, 'encoding failed')
    }
  }
}
