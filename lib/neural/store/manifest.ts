/** The record a pulled pack keeps beside its files: what it is, where it came from, its files' digests. */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as z from 'zod'
import { parseWith } from '../../validation/parse.js'

export const MANIFEST_FILE = 'svc-tts.pack.json'

export const manifestSchema = z.object({
  name: z.string(),
  type: z.enum(['piper', 'kokoro']),
  languages: z.array(z.string()),
  quality: z.string(),
  speakers: z.array(z.string()),
  repo: z.string(),
  revision: z.string(),
  commit: z.string().optional(),
  files: z.array(z.object({ path: z.string(), size: z.number().int().min(0), md5: z.string(), sha256: z.string() })),
  installed_at: z.string(),
})
export type PackManifest = z.infer<typeof manifestSchema>

/** The manifest of the pack in `directory`, or undefined where none is installed there. */
export function readManifest(directory: string): PackManifest | undefined {
  const file = path.join(directory, MANIFEST_FILE)
  if (!existsSync(file)) return undefined
  return parseWith(manifestSchema, JSON.parse(readFileSync(file, 'utf8')), file)
}

/** The path a pack's loader takes: a Piper voice's .onnx file, a Kokoro pack's directory. */
export function packPath(directory: string, manifest: PackManifest): string {
  return manifest.type === 'piper' ? path.join(directory, `${manifest.name}.onnx`) : directory
}
