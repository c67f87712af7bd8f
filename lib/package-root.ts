/**
 * The package's own folder and version, found from wherever this code runs: lib/ under tsx, dist/
 * as compiled, or the command line's bundle (dist/bin/), whose modules sit at other depths. The
 * nearest folder up whose package.json is svc-tts's is the package.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

interface Manifest {
  name?: string
  version: string
}

function findPackage(): { root: string; manifest: Manifest } {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const file = path.join(dir, 'package.json')
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest
      if (manifest.name === 'svc-tts') return { root: dir, manifest }
    }
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error(`svc-tts's package.json is in no folder above ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
}

const found = findPackage()

/** The package's folder: package.json, dist/, playground/, prebuilds/, build/. */
export const PACKAGE_ROOT = found.root

export const PACKAGE_VERSION = found.manifest.version
