/**
 * `say --voice NAME[/SPEAKER]` where NAME is a pack pulled into the models directory
 * (en_US-lessac-medium, kokoro-v1.0/af_bella): the pack is loaded for this command under its own
 * name and its speaker speaks. A pack not pulled yet is pulled only when `--pull` asks, never silently.
 */
import { TtsError } from '../errors.js'
import { pulledPackOptions } from '../neural/models-dir.js'
import type { PackOptions } from '../neural/options.js'
import { kokoroVoiceTraits } from '../neural/packs.js'
import { listInstalledModels } from '../neural/store/installed.js'
import { pullModels } from '../neural/store/pull.js'
import { packVoiceId } from '../neural/voices.js'
import { PullBar } from './pull-progress.js'

/** Names the catalogue gives packs: Piper's <lang>_<REGION>-<dataset>-<quality>, kokoro-v1.0[-precision]. */
const PACK_NAME = /^(?:[a-z]{2,3}_[A-Z]{2}-[\w]+-(?:x_low|low|medium|high)|kokoro-v[\d.]+(?:-\w+)?)$/

export interface PackVoice {
  models: Record<string, PackOptions>
  model: string
  voice: string
  language: string
}

export interface PackVoiceOptions {
  modelsDir: string
  pull: boolean
  quiet: boolean
  signal: AbortSignal
  stderr: NodeJS.WriteStream
}

/** The pack voice `--voice` names, or undefined where it names a library voice. */
export async function packVoiceFor(voice: string | undefined, options: PackVoiceOptions): Promise<PackVoice | undefined> {
  if (voice === undefined) return undefined
  const [name = '', speaker] = voice.split('/')
  const find = () => listInstalledModels(options.modelsDir).find((model) => model.name === name)
  let installed = find()
  if (!installed) {
    if (!PACK_NAME.test(name)) return undefined
    if (!options.pull) {
      throw new TtsError('MODEL_NOT_FOUND', `the pack '${name}' is not pulled into ${options.modelsDir}: add --pull, or run svc-tts models pull ${name}`)
    }
    const bar = !options.quiet && options.stderr.isTTY ? new PullBar(options.stderr) : undefined
    try {
      await pullModels([name], { modelsDir: options.modelsDir, signal: options.signal, ...(bar && { onProgress: (p) => bar.update(p) }) })
    } finally {
      bar?.clear()
    }
    installed = find()!
  }
  const { manifest } = installed
  const chosen = speaker ?? manifest.speakers[0]!
  if (!manifest.speakers.includes(chosen)) {
    throw new TtsError('VOICE_NOT_FOUND', `the pack '${name}' has no speaker '${chosen}'; it has ${manifest.speakers.slice(0, 20).join(', ')}`)
  }
  const language = manifest.type === 'kokoro' ? (kokoroVoiceTraits(chosen)?.language ?? 'en') : manifest.languages[0]!.split(/[_-]/)[0]!
  return { models: { [name]: pulledPackOptions(installed) }, model: name, voice: packVoiceId({ type: manifest.type, name }, chosen), language }
}
