// What a program that imports svc-tts, and a plain `svc-tts say`, load: importing the package root
// loads no validation, engine or addon (createEngine does), and the server, the stores' clients,
// the Chinese and Japanese readers and the XML parser are loaded only by what uses them.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

// Every module loaded, ES modules as they load (a loader hook), CommonJS ones at exit (require's
// cache) and native addons as they open, one per stderr line.
const HOOKS = `import { writeSync } from 'node:fs'
export async function load(url, context, next) { writeSync(2, 'loaded ' + url + '\\n'); return next(url, context) }`
const TRACE = `import { register, createRequire } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}))
const cache = createRequire(process.cwd() + '/').cache
const dlopen = process.dlopen
process.dlopen = (module, file, ...rest) => { process.stderr.write('loaded ' + file + '\\n'); return dlopen(module, file, ...rest) }
process.on('exit', () => { for (const file of Object.keys(cache)) process.stderr.write('loaded ' + file + '\\n') })`

async function loadedBy(args: string[]): Promise<string[]> {
  const { stderr } = await run(process.execPath, ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(TRACE)}`, ...args], { cwd: root, maxBuffer: 1 << 24 })
  return stderr.split('\n').filter((line) => line.startsWith('loaded ')).map((line) => line.slice('loaded '.length))
}

const LAZY_PACKAGES = ['pinyin-pro', 'kuromoji', 'saxes', 'ws', 'prom-client', 'busboy', '@opentelemetry/api', 'pg', 'ioredis', 'bullmq', 'express', 'fastify']
const packagesIn = (loaded: string[], names: string[]) => names.filter((name) => loaded.some((file) => file.includes(`/node_modules/${name}/`)))
const serverModules = (loaded: string[]) => loaded.filter((file) => file.includes('/lib/server/') || file.includes('/lib/postgres/'))

describe('start-up', () => {
  it('importing the package loads neither zod, the engine, the addon, the server, SQLite nor the packages only some calls need', async () => {
    const loaded = await loadedBy(['--input-type=module', '-e', "await import('./lib/index.ts')"])
    expect(loaded.some((file) => file.endsWith('/lib/index.ts'))).toBe(true)  // the trace sees the package's own modules
    expect(packagesIn(loaded, [...LAZY_PACKAGES, 'better-sqlite3', 'zod'])).toEqual([])
    // Of the engine's folder only the model table (ModelRegistry) and createEngine's loader load; nothing of the text layer but its types.
    const light = ['/engine/models.ts', '/engine/create-on-call.ts']
    const heavy = (file: string) => (file.includes('/lib/engine/') && !light.some((name) => file.endsWith(name)))
      || (file.includes('/lib/text/') && !file.endsWith('/text/types.ts')) || file.endsWith('.node')
    expect(loaded.filter(heavy)).toEqual([])
    expect(serverModules(loaded)).toEqual([])
  })

  it('createEngine() loads what the import left out: zod, the engine and the addon', async () => {
    const loaded = await loadedBy(['--input-type=module', '-e', "const { createEngine } = await import('./lib/index.ts'); await (await createEngine()).close()"])
    expect(packagesIn(loaded, ['zod'])).toEqual(['zod'])
    expect(loaded.filter((file) => file.endsWith('/lib/engine/engine.ts'))).toHaveLength(1)
    expect(loaded.filter((file) => file.endsWith('.node'))).not.toEqual([])
    expect(packagesIn(loaded, LAZY_PACKAGES)).toEqual([])
  })

  it('a plain `svc-tts say` loads neither the server nor the packages its text does not need', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-start-')), 'hello.wav')
    const loaded = await loadedBy(['lib/cli/bin.ts', 'say', '-q', 'Hello there.', '-o', out])
    expect(loaded.some((file) => file.includes('/lib/cli/say.ts'))).toBe(true)
    expect(packagesIn(loaded, LAZY_PACKAGES)).toEqual([])
    expect(serverModules(loaded)).toEqual([])
  })

  it('the packages load when a call needs them: Chinese text, SSML', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'svc-tts-start-')), 'zh.wav')
    const loaded = await loadedBy(['lib/cli/bin.ts', 'say', '-q', '<speak>你好</speak>', '--language', 'zh', '-o', out])
    expect(packagesIn(loaded, ['pinyin-pro', 'saxes'])).toEqual(['pinyin-pro', 'saxes'])
  })
})
