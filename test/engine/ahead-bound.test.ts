import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { bundledEspeakDataPath, loadNative, type NativePlan } from '../../lib/native.js'
import { waitUntil } from '../helpers/wait.js'

const RATE = 22050
const BYTES_A_SECOND = RATE * 2
const SENTENCE = 'The birch canoe slid on the smooth planks.'


describe('a stream synthesizes ahead of its reader up to a bound counted in audio', async () => {
  const native = loadNative()
  await native.init({ espeakDataPath: bundledEspeakDataPath() })
  const plan = (aheadSeconds: number): NativePlan => ({
    backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: RATE, encoding: 'pcm_s16le',
    queueCapacity: 2, aheadSeconds, chunks: Array.from({ length: 40 }, () => ({ pieces: [{ kind: 'text' as const, text: SENTENCE }] })),
  })

  /** The unread audio, in seconds, once a reader that took one stretch (`taken` seconds) has stalled the stream. */
  async function unreadAfterStall(aheadSeconds: number): Promise<{ unread: number; chunk: number; taken: number }> {
    const stream = new native.SynthStream(plan(aheadSeconds))
    const first = await stream.next()
    expect(first).not.toBeNull()
    expect(await waitUntil(() => native.counters().activeTasks === 0)).toBe(true)
    await sleep(50)
    expect(native.counters().activeTasks).toBe(0)  // stalled: nothing more is scheduled
    const unread = native.counters().unreadAudioBytes / BYTES_A_SECOND
    let piece = first
    let chunkSamples = first!.samples
    while (piece && !piece.last) {
      piece = await stream.next()
      chunkSamples += piece?.samples ?? 0
    }
    const chunk = chunkSamples / RATE
    stream.cancel()
    expect(native.counters().unreadAudioBytes).toBe(0)  // a cancelled stream lets go of its audio
    return { unread, chunk, taken: first!.samples / RATE }
  }

  it('holds at least aheadSeconds of audio, and no more than the chunks still running when it got there', async () => {
    for (const aheadSeconds of [3, 10]) {
      const { unread, chunk } = await unreadAfterStall(aheadSeconds)
      expect(chunk).toBeGreaterThan(1)
      expect(unread).toBeGreaterThanOrEqual(aheadSeconds - chunk)  // the stretch read was part of a chunk
      expect(unread).toBeLessThanOrEqual(aheadSeconds + 2 * chunk)  // queueCapacity chunks may finish past it
    }
  })

  it('with aheadSeconds 0, the next chunk waits until the reader has taken everything', async () => {
    const { unread, chunk, taken } = await unreadAfterStall(0)
    // The first read takes all of the first chunk made by then: the rest of that chunk is all that
    // is left; or, when the whole chunk was made before it (a loaded machine, a warm espeak-ng), the
    // next chunk was due and nothing after it. The chunks are the same sentence, as long.
    if (taken < chunk) expect(unread).toBeCloseTo(chunk - taken, 6)
    else expect(unread).toBeCloseTo(chunk, 6)
  })
})
