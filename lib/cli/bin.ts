#!/usr/bin/env node
/** The svc-tts command line as the package's bin runs it (bundled into dist/bin/svc-tts.js). */
import module from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PACKAGE_VERSION } from '../package-root.js'
import { runCli } from './main.js'

// Node 22.1 and later keep V8's code for the modules loaded from here on in a cache on disk
// (os.tmpdir(), or NODE_COMPILE_CACHE), so a later run skips compiling them. The engine, the
// validation and each command's modules are imported when a command needs them, after this.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()

// The launcher (bin/svc-tts) names the snapshot `say` would have started from, had it been built.
const blob = process.env.SVC_TTS_SNAPSHOT_BLOB
if (blob) {
  const { buildSnapshotInBackground } = await import('./snapshot-build.js')
  const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), 'svc-tts-snapshot.cjs')
  process.once('exit', () => buildSnapshotInBackground(blob, bundle, PACKAGE_VERSION))
}
runCli(process.argv.slice(2))
