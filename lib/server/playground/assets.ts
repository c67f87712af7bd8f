/**
 * The playground's static files, shipped in the package's top-level playground/ folder. Only the
 * names listed here are served (a request names a file, never a path), each read once and kept.
 */
import { readFile } from 'node:fs/promises'
import path, { extname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PACKAGE_ROOT } from '../../package-root.js'

export const PLAYGROUND_FOLDER = pathToFileURL(path.join(PACKAGE_ROOT, 'playground/'))

/** Every file of the page. */
export const PLAYGROUND_FILES = [
  'index.html',
  'style.css',
  'app.js',
  'credentials.js',
  'api.js',
  'speaker.js',
  'player.js',
  'reader.js',
  'recorder.js',
  'capture.js',
  'wav.js',
] as const

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
}

export interface PlaygroundFile {
  body: Buffer
  contentType: string
}

const cache = new Map<string, Promise<PlaygroundFile>>()

/** The file named, or undefined for a name that is not one of the page's files. */
export function playgroundFile(name: string): Promise<PlaygroundFile> | undefined {
  if (!(PLAYGROUND_FILES as readonly string[]).includes(name)) return undefined
  let file = cache.get(name)
  if (!file) {
    file = readFile(new URL(name, PLAYGROUND_FOLDER)).then((body) => ({ body, contentType: CONTENT_TYPES[extname(name)]! }))
    // A failed read (a broken install) is not kept: the next request tries again.
    file.catch(() => cache.delete(name))
    cache.set(name, file)
  }
  return file
}
