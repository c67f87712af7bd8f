/** The packs pulled into a models directory: listed from their manifests, removed whole. */
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { TtsError } from '../../errors.js'
import { closestNames } from '../catalogue/catalogue.js'
import { fileSystemError } from '../hub/download.js'
import { defaultModelsDir, PULLS_DIR } from './home.js'
import { acquireLock } from './lock.js'
import { readManifest, type PackManifest } from './manifest.js'

export interface InstalledModel {
  name: string
  directory: string
  manifest: PackManifest
  size: number
}

export function listInstalledModels(modelsDir: string = defaultModelsDir()): InstalledModel[] {
  const root = path.resolve(modelsDir)
  if (!existsSync(root)) return []
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const directory = path.join(root, entry.name)
      const manifest = readManifest(directory)
      return manifest ? [{ name: manifest.name, directory, manifest, size: manifest.files.reduce((sum, f) => sum + f.size, 0) }] : []
    })
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** Removes an installed pack: moved out of sight in one step, then deleted. */
export async function removeModel(name: string, options: { modelsDir?: string; signal?: AbortSignal } = {}): Promise<void> {
  const root = path.resolve(options.modelsDir ?? defaultModelsDir())
  const installed = listInstalledModels(root)
  const found = installed.find((model) => model.name === name)
  if (!found) {
    const closest = closestNames(name, installed.map((model) => model.name))
    throw new TtsError('MODEL_NOT_FOUND', `no pack named '${name}' is installed in ${root}${closest.length ? `; installed: ${closest.join(', ')}` : ''}`, { extra: { closest } })
  }
  const pulls = path.join(root, PULLS_DIR)
  await mkdir(pulls, { recursive: true }).catch((cause: unknown) => { throw fileSystemError(pulls, cause) })
  const release = await acquireLock(path.join(pulls, `${name}.lock`), options.signal)
  try {
    const doomed = path.join(pulls, `${name}.removing-${randomUUID()}`)
    await rename(found.directory, doomed).catch((cause: unknown) => { throw fileSystemError(found.directory, cause) })
    await rm(doomed, { recursive: true, force: true })
  } finally {
    await release()
  }
}
