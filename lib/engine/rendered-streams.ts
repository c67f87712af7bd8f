/**
 * A session's chunks on native streams, one stream per SSML rendering (a voice, language or
 * prosody of its own): a native stream speaks with one voice, rate and pitch, so a chunk that
 * asks for others goes to a stream opened with them. Chunks are read back in the order they were
 * appended, whichever stream made them; each stream still synthesises ahead within its bounds.
 * Without SSML every chunk has no rendering and all go to one stream, as before.
 */
import type { NativeChunk, NativeChunkPlan, NativeSynthStream, NativePlan } from '../native.js'
import type { Rendering } from '../text/types.js'

export interface RenderedChunkPlan {
  plan: NativeChunkPlan
  rendering?: Rendering
}

/** What the session reads its audio from: a native stream that takes rendered chunks. */
export interface ChunkStream {
  next(): Promise<NativeChunk | null>
  append(chunks: RenderedChunkPlan[]): void
  end(): void
  cancel(): void
}

/** Opens a native stream for a rendering on its first chunks; `leading`: they are the session's first audio. */
export type StreamOpener = (rendering: Rendering | undefined, chunks: NativeChunkPlan[], leading: boolean) => NativeSynthStream

interface OpenStream {
  stream: NativeSynthStream
  /** Chunks appended and not yet read to their end. */
  unread: number
  gain: number
}

/** Scales PCM samples (16-bit or float; G.711 is left as it is, its volume unchanged). */
function withGain(chunk: NativeChunk, gain: number, encoding: NativePlan['encoding']): NativeChunk {
  const { audio } = chunk
  if (encoding === 'pcm_s16le') {
    const out = Buffer.alloc(audio.length)
    for (let i = 0; i + 1 < audio.length; i += 2) out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(audio.readInt16LE(i) * gain))), i)
    return { ...chunk, audio: out }
  }
  if (encoding === 'pcm_f32le') {
    const out = Buffer.alloc(audio.length)
    for (let i = 0; i + 3 < audio.length; i += 4) out.writeFloatLE(Math.max(-1, Math.min(1, audio.readFloatLE(i) * gain)), i)
    return { ...chunk, audio: out }
  }
  return chunk
}

export class RenderedStreams implements ChunkStream {
  private readonly streams = new Map<Rendering | undefined, OpenStream>()
  /** The stream of each chunk not yet read, in the order appended. */
  private readonly order: OpenStream[] = []
  private opened = false
  private ended = false
  /** The rendering of the last chunk appended: its stream stays open for the chunks to come. */
  private latest: Rendering | undefined

  constructor(
    private readonly open: StreamOpener,
    private readonly encoding: NativePlan['encoding'],
  ) {}

  append(chunks: RenderedChunkPlan[]): void {
    let from = 0
    while (from < chunks.length) {
      const { rendering } = chunks[from]!
      let to = from + 1
      while (to < chunks.length && chunks[to]!.rendering === rendering) to++
      const plans = chunks.slice(from, to).map((chunk) => chunk.plan)
      let open = this.streams.get(rendering)
      if (open) {
        open.stream.append(plans)
      } else {
        open = { stream: this.open(rendering, plans, !this.opened), unread: 0, gain: rendering?.volume ?? 1 }
        this.opened = true
        this.streams.set(rendering, open)
      }
      open.unread += plans.length
      for (let i = from; i < to; i++) this.order.push(open)
      this.latest = rendering
      from = to
    }
    for (const [rendering, open] of this.streams) if (rendering !== this.latest) this.endIfRead(rendering, open)
  }

  async next(): Promise<NativeChunk | null> {
    const open = this.order[0]
    if (!open) return null
    const chunk = await open.stream.next()
    if (chunk === null) return null
    if (chunk.last) {
      this.order.shift()
      open.unread--
      for (const [rendering, stream] of this.streams) if (stream === open && rendering !== this.latest) this.endIfRead(rendering, open)
    }
    return open.gain === 1 ? chunk : withGain(chunk, open.gain, this.encoding)
  }

  end(): void {
    this.ended = true
    for (const { stream } of this.streams.values()) stream.end()
  }

  cancel(): void {
    for (const { stream } of this.streams.values()) stream.cancel()
    this.streams.clear()
    this.order.length = 0
  }

  /** A stream whose chunks are all read, of a rendering the text has left, is ended (one reopens if it returns). */
  private endIfRead(rendering: Rendering | undefined, open: OpenStream): void {
    if (open.unread > 0 || this.ended) return
    open.stream.end()
    this.streams.delete(rendering)
  }
}
