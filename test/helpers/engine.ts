import { createEngine, PREDEFINED_VOICES, type Engine, type Language, type SpeechChunk } from '../../lib/index.js'

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

/** Stretches of a speech stream joined into its chunks (the clauses and sentences it synthesised as one utterance). */
export function joinChunks(stretches: SpeechChunk[]): SpeechChunk[] {
  const chunks: SpeechChunk[] = []
  let open: SpeechChunk[] = []
  for (const stretch of stretches) {
    open.push(stretch)
    if (!stretch.endsChunk) continue
    chunks.push({
      audio: Buffer.concat(open.map((part) => part.audio)),
      samples: open.reduce((n, part) => n + part.samples, 0),
      offsetSamples: open[0]!.offsetSamples,
      words: open.flatMap((part) => part.words),
      endsChunk: true,
    })
    open = []
  }
  if (open.length > 0) throw new Error('stretches after the last chunk')
  return chunks
}
