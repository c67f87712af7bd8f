/** Times one `engine.speak()` call the way a streaming consumer experiences it. */
import type { Engine } from '../../lib/engine/engine.js'
import type { SpeechTiming } from './protocol.js'
import { requestFor, type Subject } from './subjects.js'

export async function timeSpeech(engine: Engine, subject: Subject, transcript: string): Promise<SpeechTiming> {
  const request = requestFor(subject, transcript)
  const started = performance.now()
  let firstAudioMs: number | undefined
  let samples = 0
  for await (const chunk of engine.speak(request)) {
    firstAudioMs ??= performance.now() - started
    samples += chunk.samples
  }
  const totalMs = performance.now() - started
  return { firstAudioMs: firstAudioMs ?? totalMs, totalMs, audioSeconds: samples / subject.sampleRate }
}
