/**
 * `pullModels(['en_US-lessac-medium'])`: each pack's files downloaded into DIR/.pulls/<name>/
 * (resumable), every one checked against its published digest, then the folder renamed into place
 * as DIR/<name> in one step, so a pack is either whole and checked or absent. A lock per pack makes
 * concurrent pulls of one pack wait for the first and find it installed.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { TtsError } from '../../errors.js'
import { fetchCatalogue, findEntry } from '../catalogue/catalogue.js'
import { entrySize, type CatalogueEntry } from '../catalogue/entry.js'
import { downloadFile, fileSystemError } from '../hub/download.js'
import { hubOf, resolveUrl, type Hub, type HubOptions } from '../hub/hub.js'
import { defaultModelsDir, PULLS_DIR } from './home.js'
import { acquireLock } from './lock.js'
import { MANIFEST_FILE, readManifest, type PackManifest } from './manifest.js'

export interface PullProgress {
  name: string
  /** The file being fetched (its path in the pack) and its bytes on disk so far. */
  file: string
  fileBytes: number
  fileSize: number | undefined
  /** The pack's bytes on disk so far, of `size`. */
  bytes: number
  size: number
}

export interface PullOptions extends HubOptions {
  /** Default: SVC_TTS_MODELS_DIR, else the user's cache directory (defaultModelsDir()). */
  modelsDir?: string
  signal?: AbortSignal
  onProgress?: (progress: PullProgress) => void
  /** The catalogue to look names up in (default: fetched from the hub). */
  catalogue?: readonly CatalogueEntry[]
}

export interface PulledModel {
  name: string
  directory: string
  manifest: PackManifest
  /** True when it was installed already (by an earlier or a concurrent pull) and nothing was fetched. */
  alreadyInstalled: boolean
  /** Bytes fetched over the network by this pull. */
  fetchedBytes: number
}

async function makeDir(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true }).catch((cause: unknown) => { throw fileSystemError(directory, cause) })
}

async function pullEntry(hub: Hub, modelsDir: string, entry: CatalogueEntry, options: PullOptions): Promise<PulledModel> {
  const pulls = path.join(modelsDir, PULLS_DIR)
  await makeDir(pulls)
  const release = await acquireLock(path.join(pulls, `${entry.name}.lock`), options.signal)
  const target = path.join(modelsDir, entry.name)
  const work = path.join(pulls, entry.name)
  try {
    const installed = readManifest(target)
    if (installed) return { name: entry.name, directory: target, manifest: installed, alreadyInstalled: true, fetchedBytes: 0 }
    const size = entrySize(entry)
    let done = 0
    let fetchedBytes = 0
    let commit: string | undefined
    const files: PackManifest['files'] = []
    for (const file of entry.files) {
      const local = path.join(work, file.local)
      await makeDir(path.dirname(local))
      const got = await downloadFile({
        hub, url: resolveUrl(hub, entry.repo, entry.revision, file.remote), file: local,
        expected: { ...(file.size !== undefined && { size: file.size }), ...(file.md5 && { md5: file.md5 }), ...(file.sha256 && { sha256: file.sha256 }) },
        ...(options.signal && { signal: options.signal }),
        onBytes: (bytes, total) => options.onProgress?.({ name: entry.name, file: file.local, fileBytes: bytes, fileSize: total, bytes: done + bytes, size }),
      })
      done += got.size
      fetchedBytes += got.fetched
      commit ??= got.commit
      files.push({ path: file.local, size: got.size, md5: got.md5, sha256: got.sha256 })
    }
    const manifest: PackManifest = {
      name: entry.name, type: entry.type, languages: entry.languages, quality: entry.quality, speakers: entry.speakers,
      repo: entry.repo, revision: entry.revision, ...(commit !== undefined && { commit }), files, installed_at: new Date().toISOString(),
    }
    await writeFile(path.join(work, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`).catch((cause: unknown) => { throw fileSystemError(work, cause) })
    await rename(work, target).catch((cause: unknown) => { throw fileSystemError(target, cause) })
    return { name: entry.name, directory: target, manifest, alreadyInstalled: false, fetchedBytes }
  } catch (error) {
    // A full disk: give back what this pull took. Otherwise partial files stay for a resume.
    if (error instanceof TtsError && error.code === 'STORAGE_FULL') await rm(work, { recursive: true, force: true })
    throw error
  } finally {
    await release()
  }
}

/** Pulls each named pack into the models directory, one after the other; already installed ones are left as they are. */
export async function pullModels(names: readonly string[], options: PullOptions = {}): Promise<PulledModel[]> {
  const hub = hubOf(options)
  const modelsDir = path.resolve(options.modelsDir ?? defaultModelsDir())
  const catalogue = options.catalogue ?? (await fetchCatalogue({ ...options, endpoint: hub.endpoint, ...(hub.token && { token: hub.token }) }))
  const entries = names.map((name) => findEntry(catalogue, name))
  const pulled: PulledModel[] = []
  for (const entry of entries) pulled.push(await pullEntry(hub, modelsDir, entry, options))
  return pulled
}
