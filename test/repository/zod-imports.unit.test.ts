// The command line's bundle (scripts/bundle-cli.mjs) keeps only the zod that lib/ uses when lib/
// imports it as a namespace (`import * as z from 'zod'`): esbuild reads `z.object` as a named
// import. `import { z } from 'zod'` is one object holding all of zod, locales included (550 kB more
// to load, about 8 ms of every `svc-tts say` on Node 22 and 17 on Node 20).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

it('lib/ imports zod as a namespace, never its z object', () => {
  const files = sourceFiles(join(root, 'lib'))
  const zodImports = files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^import\s+(.+?)\s+from\s+'zod(?:\/[^']*)?'/gm)].map((m) => ({ file: relative(root, file), what: m[1]! })))
  expect(zodImports.length).toBeGreaterThan(10)
  expect(zodImports.filter((i) => !/^(type\s+)?\*\s+as\s+z$/.test(i.what))).toEqual([])
})
