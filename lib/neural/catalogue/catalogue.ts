/**
 * What can be pulled: the Piper voices of rhasspy/piper-voices and the Kokoro v1.0 export, read from
 * the hub (or its mirror) when asked, and the lookup of a name in it.
 */
import * as z from 'zod'
import { TtsError } from '../../errors.js'
import { editDistance } from '../../validation/parse.js'
import { fetchHubJson, hubOf, listTree, resolveUrl, type HubOptions } from '../hub/hub.js'
import type { CatalogueEntry } from './entry.js'
import { KOKORO_REPO, KOKORO_REVISION, kokoroEntries } from './kokoro.js'
import { PIPER_CATALOGUE_FILE, PIPER_REPO, PIPER_REVISION, parsePiperCatalogue } from './piper.js'

export interface CatalogueFilter {
  /** A language code or its prefix: `en` matches en_US and en_GB. */
  language?: string
  quality?: string
}

export async function fetchCatalogue(options: HubOptions & { signal?: AbortSignal } = {}): Promise<CatalogueEntry[]> {
  const hub = hubOf(options)
  const [piper, models, voices] = await Promise.all([
    fetchHubJson(hub, resolveUrl(hub, PIPER_REPO, PIPER_REVISION, PIPER_CATALOGUE_FILE), z.unknown(), PIPER_CATALOGUE_FILE, options.signal),
    listTree(hub, KOKORO_REPO, KOKORO_REVISION, 'onnx', options.signal),
    listTree(hub, KOKORO_REPO, KOKORO_REVISION, 'voices', options.signal),
  ])
  const entries = [...parsePiperCatalogue(piper), ...kokoroEntries(models, voices)]
  return entries.sort((a, b) => a.name.localeCompare(b.name))
}

const normalised = (code: string) => code.toLowerCase().replace(/-/g, '_')

export function filterCatalogue(entries: readonly CatalogueEntry[], filter: CatalogueFilter): CatalogueEntry[] {
  return entries.filter((entry) =>
    (filter.language === undefined || entry.languages.some((code) => normalised(code) === normalised(filter.language!) || normalised(code).startsWith(`${normalised(filter.language!)}_`)))
    && (filter.quality === undefined || entry.quality === filter.quality))
}

/** The names nearest to `name`, nearest first: the ones that contain it, then by edit distance. */
export function closestNames(name: string, names: readonly string[], count = 5): string[] {
  const wanted = name.toLowerCase()
  const score = (candidate: string) => (candidate.toLowerCase().includes(wanted) ? -1 : editDistance(wanted, candidate.toLowerCase()))
  return [...names].sort((a, b) => score(a) - score(b) || a.localeCompare(b)).slice(0, count)
}

export function findEntry(entries: readonly CatalogueEntry[], name: string): CatalogueEntry {
  const entry = entries.find((e) => e.name === name)
  if (entry) return entry
  const closest = closestNames(name, entries.map((e) => e.name))
  throw new TtsError('MODEL_NOT_IN_CATALOGUE', `no model named '${name}' in the catalogue; closest: ${closest.join(', ')}`, { extra: { closest } })
}
