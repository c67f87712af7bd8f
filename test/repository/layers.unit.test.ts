// The house is layered: cli -> server -> realtime -> engine -> neural -> voices -> text, on a ground
// floor of the native loader, the package's own folder, audio, errors and validation. This reads
// every import in lib/ and fails on an import that runs back up a layer, and on any import cycle
// between files (a cycle hides a layering mistake even inside one layer). It also keeps lib/ on
// the namespace import of zod, which lets the command line's bundle leave out what lib/ never uses.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const lib = join(root, 'lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const targets = [...text.matchAll(IMPORT)].map((match) =>
    relative(root, normalize(join(dirname(file), match[1]!.replace(/\.js$/, '.ts')))),
  )
  return [...new Set(targets)]
}

const graph = new Map(sourceFiles(lib).map((file) => [relative(root, file), importsOf(file)]))

// The floors of lib/, top first: a folder (or entry file) may import its own floor and those below,
// never one above. The ground floor is what every floor may use. docs/architecture.md draws this map.
const FLOORS: readonly (readonly string[])[] = [
  ['lib/index.ts', 'lib/schemas/'],  // the package's entry points
  ['lib/cli/'],
  ['lib/server/'],
  ['lib/realtime/'],
  ['lib/engine/'],
  ['lib/neural/'],
  ['lib/voices/'],
  ['lib/text/'],
  ['lib/native.ts', 'lib/package-root.ts', 'lib/audio/', 'lib/errors.ts', 'lib/validation/', 'lib/postgres/'],
]

function layerOf(file: string): number {
  const floor = FLOORS.findIndex((rooms) => rooms.some((room) => (room.endsWith('/') ? file.startsWith(room) : file === room)))
  if (floor < 0) throw new Error(`${file} is on no floor of the layer map`)
  return FLOORS.length - floor
}

function cycles(): string[][] {
  // Tarjan's strongly connected components; any component of more than one file is a cycle.
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, counter)
    low.set(file, counter++)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!))
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== file)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe('module layering', () => {
  it('reads the imports of every lib file', () => {
    expect(graph.size).toBeGreaterThan(40)
    expect(graph.get('lib/engine/engine.ts')).toContain('lib/native.ts')
    for (const targets of graph.values()) {
      for (const target of targets) expect(graph.has(target), target).toBe(true)
    }
  })

  it('every file of lib/ is on a floor, and only the entry points and the ground stand at the top of lib/', () => {
    for (const file of graph.keys()) expect(() => layerOf(file)).not.toThrow()
    const top = [...graph.keys()].filter((file) => !file.slice('lib/'.length).includes('/'))
    expect(top.sort()).toEqual(['lib/errors.ts', 'lib/index.ts', 'lib/native.ts', 'lib/package-root.ts'])
  })

  it('no import runs back up a layer', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} -> ${target}`),
    )
    expect(upward).toEqual([])
  })

  it('only lib/native.ts loads the addon', () => {
    const loaders = [...graph.keys()].filter((file) => /process\.dlopen|node-gyp-build|\.node['"]/.test(readFileSync(join(root, file), 'utf8')))
    expect(loaders).toEqual(['lib/native.ts'])
  })

  it('has no import cycles', () => {
    expect(cycles()).toEqual([])
  })

  // esbuild (scripts/bundle-cli.mjs) reads `z.object` off `import * as z from 'zod'` as a named
  // import; `import { z } from 'zod'` is one object holding all of zod, locales included (550 kB
  // more to load: about 8 ms of every `svc-tts say` on Node 22 and 17 on Node 20).
  it('imports zod as a namespace, never its z object', () => {
    const zodImports = [...graph.keys()].flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/^import\s+(.+?)\s+from\s+'zod(?:\/[^']*)?'/gm)].map((m) => `${file}: ${m[1]}`))
    expect(zodImports.length).toBeGreaterThan(10)
    expect(zodImports.filter((line) => !/: (type\s+)?\*\s+as\s+z$/.test(line))).toEqual([])
  })
})
