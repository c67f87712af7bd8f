/**
 * Builds the command line's startup snapshot (lib/cli/snapshot.ts) where the bin's launcher
 * (bin/svc-tts) looks for it, in a detached process that outlives this command: the blob is
 * written beside its final name, checked by starting from it, then renamed, so a launcher never
 * finds half of one. One build at a time: a marker younger than a minute means one is at work.
 * The folder keeps the snapshots read in the last 30 days (other Node binaries, other installs of
 * the package), at most 8 of them, the most recently read.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const BUILDING_FRESH_MS = 60_000
const KEPT_FOR_MS = 30 * 24 * 3600 * 1000
const KEPT_AT_MOST = 8

const BUILD = `
blob=$1; bundle=$2; tmp=$blob.$$
node=$3
if "$node" --snapshot-blob "$tmp" --build-snapshot "$bundle" && [ "$("$node" --snapshot-blob "$tmp" "$bundle" --version)" = "$4" ]; then
  mv -f -- "$tmp" "$blob"
fi
rm -f -- "$tmp" "$blob.building"
`

/** Starts building `blob` from `bundle` (dist/bin/svc-tts-snapshot.cjs) unless it exists or is being built. */
export function buildSnapshotInBackground(blob: string, bundle: string, version: string): void {
  const marker = `${blob}.building`
  try {
    if (existsSync(blob)) return
    if (existsSync(marker) && Date.now() - statSync(marker).mtimeMs < BUILDING_FRESH_MS) return
    mkdirSync(path.dirname(blob), { recursive: true })
    prune(path.dirname(blob))
    writeFileSync(marker, '')
    spawn('/bin/sh', ['-c', BUILD, 'svc-tts-snapshot', blob, bundle, process.execPath, `svc-tts ${version}`], { detached: true, stdio: 'ignore' }).unref()
  } catch {
    // A cache that cannot be written costs only the faster start.
  }
}

/** Removes the snapshots not read for KEPT_FOR_MS, and the least recently read past KEPT_AT_MOST - 1 (room for the new one). */
function prune(folder: string): void {
  const blobs = readdirSync(folder)
    .filter((file) => /^cli-.*\.blob$/.test(file))
    .map((file) => ({ file: path.join(folder, file), readMs: statSync(path.join(folder, file)).atimeMs }))
    .sort((a, b) => b.readMs - a.readMs)
  blobs.forEach(({ file, readMs }, index) => {
    if (index >= KEPT_AT_MOST - 1 || Date.now() - readMs > KEPT_FOR_MS) rmSync(file, { force: true })
  })
}
