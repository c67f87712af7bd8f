// The command line as the package's bin runs it: dist/cli/bin.js (tsc's output) and what it
// imports of the package and of zod, bundled by esbuild into dist/bin/, a chunk for each part a
// command loads on its own. Node loads a handful of files instead of some 200 modules, which is
// most of what a short `svc-tts say` spends before it speaks. The other dependencies stay packages
// (loaded from node_modules as the library loads them), and so does better-sqlite3's binary.
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const packages = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
const outdir = path.join(root, 'dist/bin')

rmSync(outdir, { recursive: true, force: true })
await build({
  entryPoints: { 'svc-tts': path.join(root, 'dist/cli/bin.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // zod is the one dependency a command's start loads (95 modules); the CLI keeps its own copy.
  external: packages.filter((name) => name !== 'zod'),
  // CommonJS packages the bundle inlines call require().
  banner: { js: "import { createRequire as __svcTtsRequire } from 'node:module'; const require = __svcTtsRequire(import.meta.url);" },
  logLevel: 'warning',
})

// The same command line as one CommonJS file for `node --build-snapshot` (lib/cli/snapshot.ts).
// While a snapshot is built, require() loads built-in modules only, and there is no import.meta:
// packages are required through a require made for this file once the snapshot has started.
// The snapshot keeps this file's source in its heap, which `say` deserializes at every start: as
// one-byte (Latin-1) text it is half the size, so the file is written without comments or
// indentation, and must hold no character above U+00FF (esbuild escapes them in strings, but not
// in regular expression literals, which lib/ therefore builds from strings where it needs them).
const snapshotBundle = path.join(outdir, 'svc-tts-snapshot.cjs')
await build({
  entryPoints: [path.join(root, 'dist/cli/snapshot.js')],
  outfile: snapshotBundle,
  minifyWhitespace: true,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: packages.filter((name) => name !== 'zod'),
  define: { 'import.meta.url': '__svcTtsUrl' },
  banner: {
    js: [
      "var __svcTtsUrl = require('node:url').pathToFileURL(__filename).href;",
      'var __svcTtsBuiltin = require;',
      'var require = (id) => (globalThis.__svcTtsRequire ?? __svcTtsBuiltin)(id);',
      "__svcTtsBuiltin('node:v8').startupSnapshot.addDeserializeCallback(() => { globalThis.__svcTtsRequire = __svcTtsBuiltin('node:module').createRequire(__filename) });",
    ].join(' '),
  },
  logLevel: 'warning',
})
const wide = [...readFileSync(snapshotBundle, 'utf8').matchAll(/[^\u0000-\u00ff]/g)]
if (wide.length > 0) {
  const shown = wide.slice(0, 5).map((m) => JSON.stringify(m.input.slice(Math.max(0, m.index - 40), m.index + 20))).join('\n  ')
  throw new Error(`${snapshotBundle} holds ${wide.length} characters above U+00FF (write them in strings, not regular expression literals):\n  ${shown}`)
}
