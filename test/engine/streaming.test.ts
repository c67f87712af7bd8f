import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { TtsError, type SynthesisRequest } from '../../lib/index.js'
import { s16 } from '../helpers/audio.js'
import { collect, joinChunks, testEngine, voiceId } from '../helpers/engine.js'
import { worstEventLoopLag } from '../helpers/event-loop.js'
import { waitUntil } from '../helpers/wait.js'

const SENTENCES = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  'It is easy to tell the depth of a well.',
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
]
const longText = (sentences: number) => Array.from({ length: sentences }, (_, i) => SENTENCES[i % SENTENCES.length]).join(' ')
const flash = (transcript: string): SynthesisRequest => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') } })


describe('streaming', async () => {
  const engine = await testEngine()

  it('flite runs on several threads at once without a lock: concurrent kal16 output equals serial output', async () => {
    const requests = SENTENCES.map((transcript): SynthesisRequest => ({ model_id: 'svc_pro_v1.0', transcript: transcript.repeat(3), voice: { mode: 'id', id: voiceId('Kal') } }))
    const serial: Buffer[] = []
    for (const request of requests) serial.push(await engine.synthesize(request))
    for (let round = 0; round < 3; round++) {
      const parallel = await Promise.all(requests.map((request) => engine.synthesize(request)))
      parallel.forEach((audio, i) => expect(audio.equals(serial[i]!)).toBe(true))
    }
  })

  for (const model of ['svc_pro_v1.0', 'svc_flash_v1.5'] as const) {
    it(`${model}: a clause too long for one chunk is cut between words and joins without a pause`, async () => {
      const clause = Array.from({ length: 6 }, () => 'the birch canoe slid on the smooth planks').join(' and ')
      const chunks = joinChunks(await collect(engine.speak({ ...flash(`${clause}.`), model_id: model, output_format: { sample_rate: 16000 } })))
      expect(chunks.length).toBe(2)
      const quietRun = (pcm: Int16Array, fromEnd: boolean) => {
        let n = 0
        while (n < pcm.length && Math.abs(pcm[fromEnd ? pcm.length - 1 - n : n]!) < 66) n++
        return n
      }
      const gap = quietRun(s16(chunks[0]!.audio), true) + quietRun(s16(chunks[1]!.audio), false)
      expect(gap / 16000).toBeLessThan(0.08)  // each utterance's own edge silence would be ~0.35 s
    })
  }

  it('each sentence is one chunk, the first one included', async () => {
    const chunks = joinChunks(await collect(engine.speak(flash(longText(3)))))
    expect(chunks.map((chunk) => chunk.words.map((word) => word.text).join(' '))).toEqual(SENTENCES.slice(0, 3))
  })

  it('abort stops the stream: no chunk after it, and the native job stops', async () => {
    const controller = new AbortController()
    const received: number[] = []
    let caught: unknown
    try {
      for await (const chunk of engine.speak(flash(longText(200)), { signal: controller.signal })) {
        received.push(chunk.samples)
        if (received.length === 2) controller.abort()
      }
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(TtsError)
    expect((caught as TtsError).code).toBe('ABORTED')
    expect(received.length).toBe(2)
    expect(await waitUntil(() => engine.counters().activeTasks === 0, 2000)).toBe(true)
  })

  it('an aborted signal before the call rejects at once', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(engine.synthesize(flash('Hello.'), { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' })
  })

  it('a consumer that stops reading stalls synthesis (bounded queue), and breaking out stops it', async () => {
    const iterator = engine.speak(flash(longText(100)))[Symbol.asyncIterator]()
    await iterator.next()
    // With nobody reading, the producer fills its small queue and then schedules nothing more.
    expect(await waitUntil(() => engine.counters().activeTasks === 0, 2000)).toBe(true)
    await sleep(50)
    expect(engine.counters().activeTasks).toBe(0)
    await iterator.return(undefined)
    expect(engine.counters().activeTasks).toBe(0)
  })

  it('the event loop stays responsive while 8 long streams run', async () => {
    const { result, worstLagMs } = await worstEventLoopLag(() =>
      Promise.all(
        Array.from({ length: 8 }, async () => {
          let samples = 0
          for await (const chunk of engine.speak(flash(longText(40)))) samples += chunk.samples
          return samples
        }),
      ),
    )
    for (const samples of result) expect(samples).toBeGreaterThan(44100 * 60)
    expect(worstLagMs).toBeLessThan(150)  // generous: the bench records the real figure
  })
})
