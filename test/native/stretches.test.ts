/**
 * What a native stream hands on with each stretch of audio (the addon packs a stretch's numbers in
 * one array, lib/native.ts makes them into objects): its sample count matches its audio, its words
 * name the chunk's pieces and characters and end inside the audio made so far, `reached` only goes
 * forward, and `last` marks the chunk's final stretch and no other.
 */
import { describe, expect, it } from 'vitest'
import { bundledEspeakDataPath, loadNative, type NativeChunk, type NativeChunkPlan, type NativePlan, type NativeSynthStream, type NativeTextPosition } from '../../lib/native.js'

const WORDS = ['The', 'birch', 'canoe', 'slid', 'on', 'the', 'smooth', 'planks.']
const TEXT = WORDS.join(' ')
const WORD_STARTS = WORDS.map((_, index) => WORDS.slice(0, index).join(' ').length + (index > 0 ? 1 : 0))
const SECOND_PIECE = 'Glue the sheet.'
const CHUNKS: NativeChunkPlan[] = [
  { pieces: [{ kind: 'text', text: TEXT }] },
  { pieces: [{ kind: 'text', text: TEXT }, { kind: 'text', text: SECOND_PIECE }] },
]

/** A place in a chunk's text comes before another. */
const before = (a: NativeTextPosition, b: NativeTextPosition) => a.piece < b.piece || (a.piece === b.piece && a.char < b.char)

/** Every stretch of the next chunk, through its last. */
async function readChunk(stream: NativeSynthStream): Promise<NativeChunk[]> {
  const stretches: NativeChunk[] = []
  for (;;) {
    const stretch = await stream.next()
    expect(stretch).not.toBeNull()
    stretches.push(stretch!)
    if (stretch!.last) return stretches
  }
}

describe('a native stream hands on each stretch with numbers that fit its audio', async () => {
  const native = loadNative()
  await native.init({ espeakDataPath: bundledEspeakDataPath() })
  // espeak-ng reports some short words with the next ("on the" as one event); flite reports each.
  const plans: Array<[string, NativePlan, number, 'every word' | 'words it reports']> = [
    ['flite kal16, s16', { backend: 'flite', voice: 'kal16', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 16000, encoding: 'pcm_s16le', queueCapacity: 2, chunks: CHUNKS }, 2, 'every word'],
    ['espeak-ng, f32', { backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 22050, encoding: 'pcm_f32le', queueCapacity: 2, chunks: CHUNKS }, 4, 'words it reports'],
  ]

  for (const [name, plan, bytesPerSample, reports] of plans) {
    it(name, async () => {
      const stream = new native.SynthStream(plan)
      for (const chunk of CHUNKS) {
        const stretches = await readChunk(stream)
        expect(stretches.map((stretch) => stretch.last)).toEqual([...stretches.slice(1).map(() => false), true])
        let made = 0
        let reached = { piece: 0, char: 0 }
        const words: Array<{ piece: number; char: number }> = []
        for (const stretch of stretches) {
          expect(stretch.samples).toBe(stretch.audio.length / bytesPerSample)
          made += stretch.samples
          for (const word of stretch.words) {
            expect(Object.keys(word).sort()).toEqual(['char', 'end', 'piece', 'start'])
            expect(word.start).toBeGreaterThanOrEqual(0)
            expect(word.end).toBeGreaterThanOrEqual(word.start)
            expect(word.end).toBeLessThanOrEqual(made)
            // A word comes no later than the stretch whose `reached` passes its start.
            expect(before(word, stretch.reached), `word ${JSON.stringify(word)} at reached ${JSON.stringify(stretch.reached)}`).toBe(true)
            words.push({ piece: word.piece, char: word.char })
          }
          expect(!before(stretch.reached, reached), `reached ${JSON.stringify(stretch.reached)} after ${JSON.stringify(reached)}`).toBe(true)
          reached = stretch.reached
        }
        expect(made).toBeGreaterThan(0)
        // The last stretch has reached past the chunk's text.
        expect(reached).toEqual({ piece: chunk.pieces.length, char: 0 })
        // The chunk's words, each once, in order, at the character where it starts in its piece.
        const expected = chunk.pieces.flatMap((_, index) => (index === 0 ? WORD_STARTS : [0, 5, 9]).map((char) => ({ piece: index, char })))
        if (reports === 'every word') expect(words).toEqual(expected)
        else {
          expect(words.map((word) => expected.findIndex((known) => known.piece === word.piece && known.char === word.char))).toEqual(
            expected.map((_, index) => index).filter((index) => words.some((word) => word.piece === expected[index]!.piece && word.char === expected[index]!.char)),
          )
          expect(words.length).toBeGreaterThanOrEqual(expected.length - 2)
          expect([words[0], words.at(-1)]).toEqual([expected[0], expected.at(-1)])
        }
      }
      expect(await stream.next()).toBeNull()
    })
  }
})

describe('a native stream for a reader that joins the audio', async () => {
  const native = loadNative()
  await native.init({ espeakDataPath: bundledEspeakDataPath() })
  const plan = (wholeChunks: boolean): NativePlan => ({
    backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 22050, encoding: 'pcm_s16le', queueCapacity: 2, chunks: CHUNKS, wholeChunks,
  })
  const readAll = async (stream: NativeSynthStream) => {
    const reads: NativeChunk[][] = []
    for (const _ of CHUNKS) reads.push(await readChunk(stream))
    expect(await stream.next()).toBeNull()
    return reads
  }

  it('hands each chunk on in one read, with the audio and words of the stretches one by one', async () => {
    const [whole, stretched] = [await readAll(new native.SynthStream(plan(true))), await readAll(new native.SynthStream(plan(false)))]
    expect(whole.map((reads) => reads.length)).toEqual([1, 1])
    for (const [index, reads] of stretched.entries()) {
      const [one] = whole[index]!
      expect(one!.audio.equals(Buffer.concat(reads.map((read) => read.audio)))).toBe(true)
      expect(one!.words).toEqual(reads.flatMap((read) => read.words))
      expect(one!.reached).toEqual(reads.at(-1)!.reached)
    }
  })
})
