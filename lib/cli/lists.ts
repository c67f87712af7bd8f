/** `svc-tts voices` and `svc-tts models`: what this installation can speak with. */
import path from 'node:path'
import type { Engine } from '../engine/engine.js'
import { MODELS_FILE } from '../neural/models-dir.js'
import { PREDEFINED_VOICES } from '../voices/predefined.js'

export async function listVoices(engine: Engine, language: string | undefined, print: (line: string) => void): Promise<void> {
  let cursor: string | undefined
  do {
    const page = await engine.voices.list({ limit: 100, ...(cursor && { cursor }) })
    for (const v of page.voices) {
      if (!language || v.language === language) print(`${v.voice_id}  ${v.language}  ${v.gender.padEnd(6)}  ${v.name}`)
    }
    cursor = page.next_cursor ?? undefined
  } while (cursor)
}

/**
 * Each model id with its languages and what speaks it (a builtin backend, or a pack with the
 * device it runs on and the pack's own voices), then where packs come from and how to add them.
 */
export function listModels(engine: Engine, modelsDir: string | undefined, print: (line: string) => void): void {
  print(`ONNX Runtime ${engine.onnxRuntimeVersion()}`)
  const models = engine.models.list()
  for (const model of models) {
    const pack = model.pack
    const where = pack
      ? `${pack.type} ${pack.path} on ${pack.info.device}${pack.info.hasDurations ? ', durations' : ''}${pack.info.windowedVocoder ? ', windowed vocoder' : ''}${pack.info.liftedConvolutions ? `, ${pack.info.liftedConvolutions} convolutions as 2-D` : ''}${pack.info.fallbackReason ? ` (not cuda: ${pack.info.fallbackReason})` : ''}`
      : model.backend
    print(`${model.id}  ${model.languages.join(',')}  ${where}`)
    for (const speaker of pack?.speakers ?? []) print(`  ${speaker.language}  ${speaker.gender.padEnd(7)}  ${speaker.name}`)
  }
  const packs = models.filter((m) => m.pack).length
  print('')
  print(`voices: ${PREDEFINED_VOICES.length} predefined on the builtin models (svc-tts voices lists them)${packs ? ', and each pack\'s own above' : ''}`)
  print(
    modelsDir
      ? `neural packs: ${packs} from ${path.join(path.resolve(modelsDir), MODELS_FILE)}`
      : `neural packs: none; --models-dir DIR serves model ids from the Piper or Kokoro packs listed in DIR/${MODELS_FILE} (device cpu, cuda or auto)`,
  )
}
