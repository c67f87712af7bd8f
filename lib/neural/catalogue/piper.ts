/**
 * The Piper voices the rhasspy/piper-voices repository publishes, read from its voices.json:
 * { key: { key, name, language: { code, family, region, ... }, quality, num_speakers,
 *   speaker_id_map, files: { path: { size_bytes, md5_digest } }, aliases } }.
 */
import path from 'node:path'
import * as z from 'zod'
import { parseWith } from '../../validation/parse.js'
import type { CatalogueEntry } from './entry.js'

export const PIPER_REPO = 'rhasspy/piper-voices'
export const PIPER_REVISION = 'v1.0.0'
export const PIPER_CATALOGUE_FILE = 'voices.json'

const voiceSchema = z.object({
  key: z.string().regex(/^[\w.-]+$/),
  name: z.string(),
  language: z.object({ code: z.string(), family: z.string(), region: z.string().optional() }),
  quality: z.string(),
  num_speakers: z.number().int().positive(),
  speaker_id_map: z.record(z.string(), z.number().int().min(0)),
  files: z.record(z.string(), z.object({ size_bytes: z.number().int().min(0), md5_digest: z.string().regex(/^[0-9a-f]{32}$/) })),
  aliases: z.array(z.string()).optional(),
})

export const piperCatalogueSchema = z.record(z.string(), voiceSchema)

/** Only the model and its config are pulled; the model card and samples stay on the hub. */
const PULLED = /\.onnx(\.json)?$/

export function parsePiperCatalogue(json: unknown): CatalogueEntry[] {
  const voices = parseWith(piperCatalogueSchema, json, PIPER_CATALOGUE_FILE)
  return Object.values(voices).map((voice) => {
    const speakers = Object.entries(voice.speaker_id_map).sort((a, b) => a[1] - b[1]).map(([name]) => name)
    return {
      name: voice.key,
      type: 'piper',
      languages: [voice.language.code],
      quality: voice.quality,
      speakers: speakers.length > 0 ? speakers : ['default'],
      repo: PIPER_REPO,
      revision: PIPER_REVISION,
      files: Object.entries(voice.files)
        .filter(([file]) => PULLED.test(file))
        .map(([file, meta]) => ({ remote: file, local: path.posix.basename(file), size: meta.size_bytes, md5: meta.md5_digest })),
    }
  })
}
