import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { TtsError, type SpeechSessionRequest, type SpeechChunk } from '../../lib/index.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'
import { waitUntil } from '../helpers/wait.js'

const PARAGRAPH =
  'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background, then let it dry. ' +
  'It is easy to tell the depth of a well! These days a chicken leg is a rare dish? Rice is often served in round bowls.'
const kal: SpeechSessionRequest = { model_id: 'svc_pro_v1.0', voice: { mode: 'id', id: voiceId('Kal') }, output_format: { sample_rate: 16000 } }

function joined(chunks: SpeechChunk[]): { audio: Buffer; words: string[] } {
  return {
    audio: Buffer.concat(chunks.map((chunk) => chunk.audio)),
    words: chunks.flatMap((chunk) => chunk.words.map((word) => `${word.index}:${word.text}@${word.startMs}-${word.endMs}`)),
  }
}


describe('engine.open(): the writable speech session', async () => {
  const engine = await testEngine()
  const oneRequest = async (transcript: string) => joined(await collect(engine.speak({ ...kal, transcript })))

  it('a paragraph written a word at a time gives the audio and words of one request', async () => {
    const session = await engine.open(kal)
    const reading = collect(session)
    for (const word of PARAGRAPH.split(/(?<= )/)) {
      session.write(word)
      await sleep(0)
    }
    session.end()
    const written = joined(await reading)
    const expected = await oneRequest(PARAGRAPH)
    expect(written.audio.length).toBeGreaterThan(16000 * 2 * 5)
    expect(written.words).toEqual(expected.words)
    expect(written.audio.equals(expected.audio)).toBe(true)
  })

  it('tags and expansions split across writes (a character at a time) are read as in one request', async () => {
    const transcript = "Pay $3.50 to <phonemes>ˈtʃiːz</phonemes> now.<break time='400ms'/> Call <digits>5 5 5</digits>, Dr. Smith. Bye."
    const session = await engine.open(kal)
    const reading = collect(session)
    for (const char of transcript) session.write(char)
    session.end()
    const written = joined(await reading)
    const expected = await oneRequest(transcript)
    expect(written.words).toEqual(expected.words)
    expect(written.audio.equals(expected.audio)).toBe(true)
  })

  it('an initial transcript is written at once', async () => {
    const session = await engine.open({ ...kal, transcript: 'The birch canoe slid on the smooth planks.' })
    session.end()
    expect(joined(await collect(session))).toEqual(await oneRequest('The birch canoe slid on the smooth planks.'))
  })

  it('an unfinished sentence waits for more text; flush speaks it at once', async () => {
    const session = await engine.open(kal)
    const iterator = session[Symbol.asyncIterator]()
    session.write('The birch canoe slid on')
    let first: IteratorResult<SpeechChunk> | undefined
    void iterator.next().then((result) => (first = result))
    await sleep(200)
    expect(first).toBeUndefined()  // nothing is spoken before the sentence ends
    session.flush()
    expect(await waitUntil(() => first !== undefined)).toBe(true)
    expect(first!.done).toBe(false)
    // The flushed chunk is spoken to its end, with its words, still before any end().
    const flushed: SpeechChunk[] = [first!.value]
    while (!flushed[flushed.length - 1]!.endsChunk) {
      const next = await iterator.next()
      expect(next.done).toBe(false)
      flushed.push(next.value)
    }
    expect(flushed.flatMap((chunk) => chunk.words.map((word) => word.text))).toEqual(['The', 'birch', 'canoe', 'slid', 'on'])
    // Its last stretch says the flush is complete; none before it does.
    expect(flushed.map((chunk) => chunk.flushes ?? 0)).toEqual([...flushed.slice(1).map(() => 0), 1])
    const flushedSamples = flushed.reduce((n, chunk) => n + chunk.samples, 0)
    expect(flushedSamples).toBeGreaterThan(16000 * 0.5)
    session.write(' the smooth planks.')
    session.end()
    const rest: SpeechChunk[] = []
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value)
    expect(rest.flatMap((chunk) => chunk.words.map((word) => word.text))).toEqual(['the', 'smooth', 'planks.'])
    expect(rest[0]!.offsetSamples).toBe(flushedSamples)
  })

  it('each flush is complete once the audio of the text before it is read: in order, never early, also with nothing new to speak', async () => {
    const session = await engine.open(kal)
    const chunks: SpeechChunk[] = []
    const reading = (async () => {
      for await (const chunk of session) chunks.push(chunk)
    })()
    const spokenWhen = (flushes: number) => waitUntil(() => chunks.reduce((n, chunk) => n + (chunk.flushes ?? 0), 0) >= flushes, 20_000)
    session.write('The birch canoe slid on the smooth planks. Glue the sheet')
    session.flush()
    expect(await spokenWhen(1)).toBe(true)
    const upToFirst = chunks.slice()
    // Everything written before the flush is out with it: the words of both sentences, the second unfinished.
    expect(upToFirst.flatMap((chunk) => chunk.words.map((word) => word.text))).toEqual(['The', 'birch', 'canoe', 'slid', 'on', 'the', 'smooth', 'planks.', 'Glue', 'the', 'sheet'])
    expect(upToFirst[upToFirst.length - 1]!.flushes).toBe(1)
    session.flush()  // nothing written since: complete at once, with no audio of its own
    expect(await spokenWhen(2)).toBe(true)
    expect(chunks.slice(upToFirst.length)).toEqual([expect.objectContaining({ samples: 0, flushes: 1, words: [] })])
    session.write(' to the dark blue background.')
    session.end()
    await reading
    expect(chunks.reduce((n, chunk) => n + (chunk.flushes ?? 0), 0)).toBe(2)
    expect(chunks.slice(upToFirst.length + 1).flatMap((chunk) => chunk.words.map((word) => word.text))).toEqual(['to', 'the', 'dark', 'blue', 'background.'])
  })

  it('a session that never flushes reads no flush marks', async () => {
    const session = await engine.open({ ...kal, transcript: 'The birch canoe slid on the smooth planks.' })
    session.end()
    expect((await collect(session)).some((chunk) => chunk.flushes !== undefined)).toBe(false)
  })

  it('a tag still open when flushed keeps waiting for its end', async () => {
    const session = await engine.open(kal)
    const reading = collect(session)
    session.write('Hello there <break ti')
    session.flush()
    session.write("me='300ms'/> friend.")
    session.end()
    const words = joined(await reading).words.map((word) => word.split('@')[0])
    expect(words).toEqual(['0:Hello', '1:there', '2:friend.'])
  })

  it('abort stops the session: reading throws ABORTED and the native work stops', async () => {
    const session = await engine.open(kal)
    session.write(`${PARAGRAPH} `.repeat(40))
    const received: SpeechChunk[] = []
    let caught: unknown
    try {
      for await (const chunk of session) {
        received.push(chunk)
        if (received.length === 2) session.abort()
      }
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(TtsError)
    expect((caught as TtsError).code).toBe('ABORTED')
    expect(received).toHaveLength(2)
    expect(await waitUntil(() => engine.counters().activeTasks === 0)).toBe(true)
    session.write('ignored after abort')
  })

  it("aborts with the caller's signal, and with a TtsError reason as that error", async () => {
    const controller = new AbortController()
    const session = await engine.open(kal, { signal: controller.signal })
    session.write('The birch canoe slid on the smooth planks. Glue the sheet')
    setTimeout(() => controller.abort(), 50)
    await expect(collect(session)).rejects.toMatchObject({ code: 'ABORTED' })

    const other = await engine.open(kal)
    other.abort(new TtsError('TOO_MANY_CONCURRENT_REQUESTS', 'busy'))
    await expect(collect(other)).rejects.toMatchObject({ code: 'TOO_MANY_CONCURRENT_REQUESTS' })
  })

  it('bad markup in a write surfaces as a TtsError from the iterator, after the audio planned before it', async () => {
    const session = await engine.open(kal)
    const received: SpeechChunk[] = []
    let caught: unknown
    session.write('The birch canoe slid on the smooth planks. Wait ')
    await sleep(20)  // the first sentence is planned before the bad tag arrives
    session.write("<break time='soon'/> here.")
    session.end()
    try {
      for await (const chunk of session) received.push(chunk)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(TtsError)
    expect(caught).toMatchObject({ code: 'INVALID_MARKUP', extra: { offset: 48 } })
    expect(received.flatMap((chunk) => chunk.words.map((word) => word.text))).toEqual(['The', 'birch', 'canoe', 'slid', 'on', 'the', 'smooth', 'planks.'])
  })

  it('a tag left open at the end is an error; misuse is a TtsError', async () => {
    const session = await engine.open(kal)
    session.write('Say <phonemes>həˈloʊ')
    session.end()
    await expect(collect(session)).rejects.toMatchObject({ code: 'INVALID_MARKUP' })
    expect(() => session.write('more')).toThrow(TtsError)
    expect(() => session[Symbol.asyncIterator]()).toThrow(TtsError)
    await expect(engine.open({ ...kal, voice: { mode: 'id', id: 'nobody' } })).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND' })
  })
})
