// native/ is layered, each folder including only from the folders below it (or from itself):
//
//   binding    the JS edge: the addon entry, the JS objects, argument reading, JS errors, plans
//      |
//   scheduler  the worker pool, a stream's chunks in flight, a chunk's synthesis
//      |
//   backends   espeak-ng, flite, the neural models (Piper, Kokoro) and their input limits
//      |
//   onnx  audio   ONNX Runtime and model rewriting | resampling, encodings, encoders, voice
//      |   |      transform, sample analysis (side by side: neither includes the other)
//   base       errors, random sources, UTF-8, static link glue
//
// Only binding/ may see Node: everything below it builds into the core library that the core's
// test program links without Node (test/native/core_test.cc).
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..')
const native = path.join(root, 'native')

const LAYER: Record<string, number> = { base: 0, onnx: 1, audio: 1, backends: 2, scheduler: 3, binding: 4 }
// Headers the build generates (CMakeLists.txt), not files of native/.
const GENERATED = new Set(['espeak_state_table.h'])
const NODE_HEADER = /^(napi\.h|napi-inl\.h|node_api\.h|node_api_types\.h|js_native_api\.h|js_native_api_types\.h|node\.h)$/

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(file) : [file]
  })
}

const sources = filesUnder(native).filter((file) => /\.(cc|h)$/.test(file))

function includesOf(file: string): { header: string; quoted: boolean }[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)].map((m) => ({ header: m[2]!, quoted: m[1] === '"' }))
}

const folderOf = (file: string): string => path.relative(native, file).split(path.sep)[0]!

describe('native/ layers', () => {
  it('every file sits in a layer folder', () => {
    const strays = filesUnder(native).filter((file) => !(folderOf(file) in LAYER))
    expect(strays.map((file) => path.relative(root, file))).toEqual([])
  })

  it('only binding/ includes the Node-API headers (the core test program neither)', () => {
    const seeing = [...sources, path.join(root, 'test/native/core_test.cc')]
      .filter((file) => folderOf(file) !== 'binding')
      .flatMap((file) => includesOf(file).filter(({ header }) => NODE_HEADER.test(path.basename(header))).map(({ header }) => `${path.relative(root, file)} includes ${header}`))
    expect(seeing).toEqual([])
  })

  it('each folder includes only from itself and the layers below it, by paths from native/ that exist', () => {
    const wrong: string[] = []
    for (const file of sources) {
      const from = folderOf(file)
      for (const { header, quoted } of includesOf(file)) {
        if (!quoted || GENERATED.has(header)) continue
        const name = `${path.relative(root, file)} includes "${header}"`
        const to = header.split('/')[0]!
        if (!(to in LAYER) || !existsSync(path.join(native, header))) wrong.push(`${name}, which is no file of native/`)
        else if (to !== from && LAYER[to]! >= LAYER[from]!) wrong.push(`${name}: ${from} may not include from ${to}`)
      }
    }
    expect(wrong).toEqual([])
  })
})
