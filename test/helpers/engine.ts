import { createEngine, PREDEFINED_VOICES, type Engine, type Language } from '../../lib/index.js'

let shared: Promise<Engine> | undefined

/** One engine per test file (each file runs in its own forked process). */
export function testEngine(): Promise<Engine> {
  shared ??= createEngine()
  return shared
}

export function voiceId(name: string): string {
  const voice = PREDEFINED_VOICES.find((v) => v.record.name === name)
  if (!voice) throw new Error(`no voice ${name}`)
  return voice.record.voice_id
}

export function firstVoiceOf(language: Language): string {
  return PREDEFINED_VOICES.find((v) => v.record.language === language)!.record.voice_id
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}
