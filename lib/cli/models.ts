/**
 * `svc-tts models available|pull|list|rm`: the catalogue of Piper and Kokoro packs on the hub, and
 * the packs pulled into the models directory (--models-dir, SVC_TTS_MODELS_DIR, else the cache).
 */
import { TtsError } from '../errors.js'
import { fetchCatalogue, filterCatalogue } from '../neural/catalogue/catalogue.js'
import { entrySize } from '../neural/catalogue/entry.js'
import { defaultModelsDir } from '../neural/store/home.js'
import { listInstalledModels, removeModel } from '../neural/store/installed.js'
import { pullModels } from '../neural/store/pull.js'
import { usageError } from './exit.js'
import { megabytes, PullBar } from './pull-progress.js'

export const MODEL_ACTIONS = ['available', 'pull', 'list', 'rm'] as const

export interface ModelsCommand {
  action: string
  names: string[]
  modelsDir: string | undefined
  language: string | undefined
  quality: string | undefined
  quiet: boolean
}

export interface ModelsIo {
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WriteStream
  signal: AbortSignal
}

const speakersOf = (speakers: readonly string[]) => (speakers.length === 1 ? '1 speaker' : `${speakers.length} speakers`)

export async function manageModels(command: ModelsCommand, io: ModelsIo): Promise<number> {
  const modelsDir = command.modelsDir ?? defaultModelsDir()
  const print = (line: string) => io.stdout.write(`${line}\n`)
  if (command.action === 'available') {
    const installed = new Set(listInstalledModels(modelsDir).map((model) => model.name))
    const catalogue = filterCatalogue(await fetchCatalogue({ signal: io.signal }), {
      ...(command.language !== undefined && { language: command.language }),
      ...(command.quality !== undefined && { quality: command.quality }),
    })
    for (const entry of catalogue) {
      print(`${entry.name}  ${entry.type}  ${entry.languages.join(',')}  ${entry.quality}  ${speakersOf(entry.speakers)}  ${megabytes(entrySize(entry))}${installed.has(entry.name) ? '  installed' : ''}`)
    }
    return 0
  }
  if (command.action === 'pull') {
    if (command.names.length === 0) throw usageError('models pull takes the names of packs to pull (svc-tts models available lists them)')
    const bar = !command.quiet && io.stderr.isTTY ? new PullBar(io.stderr) : undefined
    try {
      const pulled = await pullModels(command.names, { modelsDir, signal: io.signal, ...(bar && { onProgress: (p) => bar.update(p) }) })
      bar?.clear()
      for (const model of pulled) print(`${model.name}  ${model.alreadyInstalled ? 'already installed' : `pulled ${megabytes(model.fetchedBytes)}`}  ${model.directory}`)
    } finally {
      bar?.clear()
    }
    return 0
  }
  if (command.action === 'list') {
    for (const model of listInstalledModels(modelsDir)) {
      const { manifest } = model
      print(`${model.name}  ${manifest.type}  ${manifest.languages.join(',')}  ${manifest.quality}  ${speakersOf(manifest.speakers)}  ${megabytes(model.size)}  ${model.directory}`)
    }
    return 0
  }
  if (command.action === 'rm') {
    if (command.names.length === 0) throw usageError('models rm takes the names of installed packs (svc-tts models list lists them)')
    for (const name of command.names) {
      await removeModel(name, { modelsDir, signal: io.signal })
      print(`removed ${name}`)
    }
    return 0
  }
  throw new TtsError('INVALID_ARGUMENT', `unknown models action '${command.action}' (${MODEL_ACTIONS.join(', ')})`)
}
