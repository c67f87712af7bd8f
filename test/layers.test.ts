// The house is layered: cli -> server -> realtime -> engine -> text / voices / neural / audio -> native
// loader. This reads every import in lib/ and fails on an import that runs back up a layer, and on
// any import cycle between files (a cycle hides a layering mistake even inside one layer).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
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

// Higher layers may import lower ones, never the reverse. Files not named here are base modules
// (errors, abortable, call-scope) that any layer may use.
function layerOf(file: string): number {
  // Entry points: the CLI, the package root and its svc-tts/schemas subpath.
  if (file === 'lib/cli.ts' || file.startsWith('lib/cli/') || file === 'lib/index.ts' || file === 'lib/public-schemas.ts') return 6
  if (file.startsWith('lib/server/')) return 5
  if (file.startsWith('lib/realtime/')) return 4
  if (['lib/engine.ts', 'lib/session.ts', 'lib/encoded-session.ts'].includes(file)) return 3
  if (/^lib\/(text|voices|neural|audio)\//.test(file)) return 2
  if (['lib/schemas.ts', 'lib/models.ts', 'lib/alignment.ts'].includes(file)) return 2
  if (file === 'lib/native.ts') return 1
  return 0
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
    expect(graph.get('lib/engine.ts')).toContain('lib/native.ts')
    for (const targets of graph.values()) {
      for (const target of targets) expect(graph.has(target), target).toBe(true)
    }
  })

  it('no import runs back up a layer', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => layerOf(target) > layerOf(file)).map((target) => `${file} -> ${target}`),
    )
    expect(upward).toEqual([])
  })

  it('only lib/native.ts loads the addon', () => {
    const loaders = [...graph.keys()].filter((file) => /node-gyp-build|\.node['"]/.test(readFileSync(join(root, file), 'utf8')))
    expect(loaders).toEqual(['lib/native.ts'])
  })

  it('has no import cycles', () => {
    expect(cycles()).toEqual([])
  })
})
