import { describe, expect, it } from 'vitest'
import { bundledEspeakDataPath, loadNative, type NativeChunk, type NativeChunkPlan, type NativePlan, type NativeSynthStream } from '../../lib/native.js'

const SENTENCES = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', 'It is easy to tell the depth of a well.']
const chunk = (text: string): NativeChunkPlan => ({ pieces: [{ kind: 'text', text }] })

/** Reads one chunk to its last stretch. */
async function readChunk(stream: NativeSynthStream): Promise<Buffer> {
  const parts: Buffer[] = []
  let piece: NativeChunk | null
  do {
    piece = await stream.next()
    expect(piece).not.toBeNull()
    parts.push(piece!.audio)
  } while (!piece!.last)
  return Buffer.concat(parts)
}

describe('a native stream takes chunks appended while it is read (a session keeps one stream)', async () => {
  const native = loadNative()
  await native.init({ espeakDataPath: bundledEspeakDataPath() })
  // kal16 is deterministic: the same chunk gives the same bytes on any stream.
  const plan = (chunks: NativeChunkPlan[], open: boolean): NativePlan => ({
    backend: 'flite', voice: 'kal16', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 16000, encoding: 'pcm_s16le', queueCapacity: 2, chunks, open,
  })

  it('speaks appended chunks after the first ones, in order, as one stream given all of them would', async () => {
    const whole = new native.SynthStream(plan(SENTENCES.map(chunk), false))
    const expected = [await readChunk(whole), await readChunk(whole), await readChunk(whole)]
    expect(await whole.next()).toBeNull()

    const stream = new native.SynthStream(plan([chunk(SENTENCES[0]!)], true))
    const first = await readChunk(stream)
    // The reader waits past the last chunk until more come...
    const waiting = stream.next()
    stream.append([chunk(SENTENCES[1]!), chunk(SENTENCES[2]!)])
    const second: Buffer[] = []
    let piece = await waiting
    second.push(piece!.audio)
    while (!piece!.last) second.push((piece = await stream.next())!.audio)
    const third = await readChunk(stream)
    expect([first, Buffer.concat(second), third].map((audio) => audio.equals(expected.shift()!))).toEqual([true, true, true])
    // ...or until end(), which ends it.
    const end = stream.next()
    stream.end()
    expect(await end).toBeNull()
  })

  it('refuses chunks after end() and bad chunks with coded errors, and a closed stream ends at once', async () => {
    const stream = new native.SynthStream(plan([], true))
    expect(() => stream.append([{ pieces: [{ kind: 'text', text: 'x'.repeat(500) }] }])).toThrow(expect.objectContaining({ code: 'ERR_SVC_INPUT_TOO_LONG' }))
    expect(() => stream.append('nope' as unknown as NativeChunkPlan[])).toThrow(expect.objectContaining({ code: 'ERR_SVC_INVALID_ARGUMENT' }))
    stream.end()
    expect(() => stream.append([chunk('Hello.')])).toThrow(/append\(\) after end\(\)/)
    expect(await stream.next()).toBeNull()
    const never = new native.SynthStream(plan([], false))
    expect(await never.next()).toBeNull()
  })
})
