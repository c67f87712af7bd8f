/** What the catalogue says of a pack that can be pulled: where its files are and how to check them. */
export interface CatalogueFile {
  /** The file's path in its repository. */
  remote: string
  /** Where it goes inside the pack's directory. */
  local: string
  size?: number
  md5?: string
  sha256?: string
}

export interface CatalogueEntry {
  /** The name to pull it by: a Piper voice key (en_US-lessac-medium) or kokoro-v1.0[-precision]. */
  name: string
  type: 'piper' | 'kokoro'
  /** Language codes as the catalogue gives them (en_US) or as Kokoro's voice names imply (en). */
  languages: string[]
  /** Piper: x_low, low, medium, high; Kokoro: the model's precision (fp32, fp16, q8, ...). */
  quality: string
  speakers: string[]
  repo: string
  revision: string
  files: CatalogueFile[]
}

export const entrySize = (entry: CatalogueEntry): number => entry.files.reduce((sum, file) => sum + (file.size ?? 0), 0)
