/**
 * Audio that has been copied on is freed at once, not at V8's next full collection. V8 counts live
 * ArrayBuffers towards starting one, so a one-shot request that left its chunks (and, for a
 * compressed format, the float PCM it encoded) for the collector made the engine run a
 * mark-compact every 100-150 ms under load (bench/RESULTS.md, "Measurements behind design
 * choices"). Node's own count of ArrayBuffer memory, read before and after a request with no
 * collection forced, shows what a request leaves behind.
 */
import { describe, expect, it } from 'vitest'
import type { SynthesisRequest } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { testEngine, voiceId } from '../helpers/engine.js'

/** About 37 s of espeak-ng speech: 1.6 MB of 16-bit PCM at 22.05 kHz, 3.3 MB as float. */
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. '.repeat(8)
/** What a request may leave besides its result: the words' numbers, small Buffers. */
const SLACK_BYTES = 256 << 10

const arrayBufferBytes = () => process.memoryUsage().arrayBuffers

describe('releaseBuffer, the native primitive', () => {
  it('frees a Buffer that has an ArrayBuffer of its own: it reads as empty, and its bytes are gone before any collection', () => {
    const native = loadNative()
    const buffer = Buffer.alloc(8 << 20, 7)
    const before = arrayBufferBytes()
    expect(native.releaseBuffer(buffer)).toBe(true)
    expect(buffer.length).toBe(0)
    expect(before - arrayBufferBytes()).toBeGreaterThanOrEqual(8 << 20)
    expect(native.releaseBuffer(buffer)).toBe(false)  // already freed
  })

  it('leaves a slice of a larger ArrayBuffer as it is (Node pools small Buffers), and an empty one', () => {
    const native = loadNative()
    const pooled = Buffer.from('hello')
    const neighbour = Buffer.from('world')
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length)
    expect(native.releaseBuffer(pooled)).toBe(false)
    expect(pooled.toString()).toBe('hello')
    expect(neighbour.toString()).toBe('world')
    const whole = Buffer.alloc(1000, 1)
    const tail = whole.subarray(10)
    expect(native.releaseBuffer(tail)).toBe(false)
    expect(tail.length).toBe(990)
    expect(whole.length).toBe(1000)
    expect(native.releaseBuffer(Buffer.alloc(0))).toBe(false)
  })

  it('refuses anything but a Buffer with a coded TypeError', () => {
    const native = loadNative()
    for (const value of ['audio', new ArrayBuffer(8), undefined, 5]) {
      let thrown: unknown
      try {
        native.releaseBuffer(value as unknown as Buffer)
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(TypeError)
      expect((thrown as { code?: string }).code).toBe('ERR_SVC_INVALID_ARGUMENT')
      expect((thrown as TypeError).message).toMatch(/^releaseBuffer: buffer (must be a Buffer|is required)/)
    }
  })
})

describe('a one-shot request keeps only the audio it returns', () => {
  const request = (container: 'raw' | 'wav' | 'mp3'): SynthesisRequest => ({
    model_id: 'svc_flash_v1.5',
    transcript: TEXT,
    voice: { mode: 'id', id: voiceId('Sarah') },
    output_format: { container, encoding: 'pcm_s16le', sample_rate: 22050 },
  })

  for (const container of ['raw', 'wav', 'mp3'] as const) {
    it(`synthesize, ${container}: the chunks it was joined from, and any PCM it encoded, are freed`, async () => {
      const engine = await testEngine()
      await engine.synthesize(request(container))  // first-call allocations
      const before = arrayBufferBytes()
      const audio = await engine.synthesize(request(container))
      const grown = arrayBufferBytes() - before
      expect(audio.length).toBeGreaterThan(container === 'mp3' ? 200_000 : 1_500_000)
      expect(grown).toBeLessThan(audio.length + SLACK_BYTES)
    })
  }
})
