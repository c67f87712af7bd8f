/** What a LiveKit agents TTS plugin reports: its audio frames and the words' times, read to the end within a bound. */
import { tts as agentsTts } from '@livekit/agents'

export interface Collected {
  seconds: number
  frames: number
  sampleRate: number
  words: string[]
}

export async function collect(events: AsyncIterable<agentsTts.SynthesizedAudio | typeof agentsTts.SynthesizeStream.END_OF_STREAM>): Promise<Collected> {
  const collected: Collected = { seconds: 0, frames: 0, sampleRate: 0, words: [] }
  for await (const event of events) {
    if (event === agentsTts.SynthesizeStream.END_OF_STREAM) break
    collected.frames++
    collected.sampleRate = event.frame.sampleRate
    collected.seconds += event.frame.samplesPerChannel / event.frame.sampleRate
    collected.words.push(...(event.timedTranscripts ?? []).map((word) => word.text.trim()))
  }
  return collected
}

/** `promise`, or a rejection once `ms` pass: a plugin that never ends its stream fails the test instead of hanging it. */
export function bounded<T>(promise: Promise<T>, ms = 20_000): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no end within ${ms} ms`)), ms).unref())])
}
