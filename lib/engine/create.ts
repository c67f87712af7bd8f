/** createEngine: the addon loaded, its engines started off the main thread, the neural packs loaded. */
import { availableParallelism } from 'node:os'
import { TtsError } from '../errors.js'
import { bundledEspeakDataPath, fromNativeError, loadNative } from '../native.js'
import type { PackOptions } from '../neural/options.js'
import { readModelsDir } from '../neural/models-dir.js'
import { loadPack } from '../neural/packs.js'
import { parseWith } from '../validation/parse.js'
import { Engine } from './engine.js'
import { DEFAULT_THREAD_NICE, engineOptionsSchema, type EngineOptions } from './options.js'

/** One synthesis thread for each CPU this process may run on (its affinity), at least 2 and at most 64. */
const defaultThreads = () => Math.min(64, Math.max(2, availableParallelism()))

/** Loads the addon, starts its engines off the main thread, and returns a ready engine. */
export async function createEngine<Packs extends Record<string, PackOptions> = {}>(
  options: EngineOptions<Packs> & { modelsDir: string },
): Promise<Engine<string>>  // a models directory's ids are known only once it is read
export async function createEngine<Packs extends Record<string, PackOptions> = {}>(options?: EngineOptions<Packs>): Promise<Engine<Extract<keyof Packs, string>>>
export async function createEngine<Packs extends Record<string, PackOptions> = {}>(
  options: EngineOptions<Packs> = {},
): Promise<Engine<Extract<keyof Packs, string>>> {
  const checked = parseWith(engineOptionsSchema, options, 'engine options')
  const fromDir = checked.modelsDir !== undefined ? readModelsDir(checked.modelsDir) : undefined
  const models = { ...fromDir?.models, ...checked.models }
  const native = loadNative()
  const espeakDataPath = checked.espeakDataPath ?? bundledEspeakDataPath()
  try {
    await native.init({
      threads: checked.threads ?? defaultThreads(),
      threadNice: checked.threadNice ?? DEFAULT_THREAD_NICE,
      ...(espeakDataPath !== undefined && { espeakDataPath }),
    })
  } catch (cause) {
    // Whatever the addon's code, an engine that cannot start is NATIVE_LOAD_FAILED.
    const error = fromNativeError(cause, 'the native engines failed to start')
    throw new TtsError('NATIVE_LOAD_FAILED', error.message, { cause, ...(error.extra && { extra: error.extra }) })
  }
  const load = {
    device: checked.device ?? fromDir?.device ?? 'cpu',
    threads: checked.modelThreads ?? fromDir?.modelThreads ?? 1,
    warn: checked.onWarning ?? ((message: string) => process.emitWarning(message, 'SvcTtsWarning')),
  }
  // Packs load in parallel on the native pool; if one fails, the others are freed again.
  const results = await Promise.allSettled(Object.entries(models).map(([id, pack]) => loadPack(native, id, pack, load)))
  const packs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failed) {
    for (const pack of packs) pack.model.unload()
    throw failed.reason
  }
  return new Engine(native, checked, packs)
}
