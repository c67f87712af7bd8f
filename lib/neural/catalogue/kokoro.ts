/**
 * The Kokoro v1.0 ONNX export (onnx-community/Kokoro-82M-v1.0-ONNX, the one kokoro-js uses): one
 * pack per precision of the model (onnx/model*.onnx), each with every voice style file
 * (voices/*.bin). Sizes and SHA-256 digests come from the hub's listing of the repository.
 */
import { kokoroVoiceTraits } from '../packs.js'
import type { TreeEntry } from '../hub/hub.js'
import type { CatalogueEntry } from './entry.js'

export const KOKORO_REPO = 'onnx-community/Kokoro-82M-v1.0-ONNX'
export const KOKORO_REVISION = 'main'
export const KOKORO_NAME = 'kokoro-v1.0'

/** onnx/model_<suffix>.onnx -> the precision users ask for (transformers.js calls model_quantized q8). */
function precisionOf(file: string): string | undefined {
  const suffix = /^onnx\/model(?:_(\w+))?\.onnx$/.exec(file)?.[1]
  if (suffix === undefined) return /^onnx\/model\.onnx$/.test(file) ? 'fp32' : undefined
  return suffix === 'quantized' ? 'q8' : suffix
}

export function kokoroEntries(models: TreeEntry[], voices: TreeEntry[]): CatalogueEntry[] {
  const styles = voices.filter((v) => v.type === 'file' && /^voices\/[\w-]+\.bin$/.test(v.path)).sort((a, b) => a.path.localeCompare(b.path))
  const speakers = styles.map((v) => v.path.slice('voices/'.length, -'.bin'.length))
  const languages = [...new Set(speakers.flatMap((s) => kokoroVoiceTraits(s)?.language ?? []))]
  const file = (entry: TreeEntry, local: string) => ({
    remote: entry.path, local, size: entry.lfs?.size ?? entry.size, ...(entry.lfs && { sha256: entry.lfs.oid }),
  })
  return models.flatMap((model) => {
    const precision = model.type === 'file' ? precisionOf(model.path) : undefined
    if (precision === undefined) return []
    return [{
      name: precision === 'fp32' ? KOKORO_NAME : `${KOKORO_NAME}-${precision}`,
      type: 'kokoro' as const,
      languages,
      quality: precision,
      speakers,
      repo: KOKORO_REPO,
      revision: KOKORO_REVISION,
      files: [file(model, 'model.onnx'), ...styles.map((style) => file(style, style.path))],
    }]
  })
}
