// scripts/programs.txt is the list of programs `npm test` and the bench may run (they run with a
// PATH of only those: scripts/with-listed-programs.sh). Here: each listed program really comes from
// the package the list names, that package is installed by scripts/install-system-deps.sh (or is
// Essential, or is Node.js itself), and every program the sources run by name is on the list.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

const listed = read('scripts/programs.txt')
  .split('\n')
  .filter((line) => line.trim() && !line.startsWith('#'))
  .map((line) => {
    const [program, source] = line.trim().split(/\s+/)
    return { program: program!, source: source! }
  })

/** The packages after `apt-get install` in the install script. */
const installed = new Set(
  read('scripts/install-system-deps.sh')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.includes('apt-get install'))
    .flatMap((line) => line.split('apt-get install')[1]!.trim().split(/\s+/))
    .filter((word) => !word.startsWith('-')),
)

/** Where a fresh Debian machine has the program. */
function debianPath(program: string): string | undefined {
  for (const dir of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const file = path.join(dir, program)
    if (existsSync(file)) return file
  }
  return undefined
}

/** The Debian package that owns `file` (dpkg knows a usr-merged file by either of its paths). */
function owner(file: string): string {
  const candidates = [file, realpathSync(file), file.replace(/^\/usr\/bin\//, '/bin/'), realpathSync(file).replace(/^\/usr\/bin\//, '/bin/')]
  for (const candidate of candidates) {
    try {
      const lines = execFileSync('dpkg', ['-S', candidate], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')
      const owned = lines.find((line) => !line.startsWith('diversion by') && line.endsWith(`: ${candidate}`))
      if (owned) return owned.split(':')[0]!.trim()
    } catch {
      // not this spelling of the path
    }
  }
  throw new Error(`no Debian package owns ${file}`)
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : sourceFiles(file)
    return /\.(ts|mjs|cjs|sh)$/.test(entry.name) ? [file] : []
  })
}

describe('the programs the tests, bench and scripts run', () => {
  it.each(listed)('$program comes from $source, which a fresh machine gets', ({ program, source }) => {
    if (source === 'node') {
      expect(existsSync(path.join(path.dirname(process.execPath), program)), `${program} beside ${process.execPath}`).toBe(true)
      return
    }
    const file = debianPath(program)
    expect(file, `${program} is not installed`).toBeDefined()
    const pkg = owner(file!)
    if (source === 'essential') {
      expect(execFileSync('dpkg-query', ['-W', '-f=${Essential}', pkg], { encoding: 'utf8' }), `${pkg} (of ${program}) is Essential`).toBe('yes')
    } else {
      // The package named, or one it brings (python3 brings python3-minimal, which holds the program).
      const depends = execFileSync('dpkg-query', ['-W', '-f=${Pre-Depends},${Depends}', source], { encoding: 'utf8' })
      const brought = depends.split(/[,|]/).map((d) => d.trim().split(/[\s:]/)[0])
      expect([source, ...brought], `the package of ${file}`).toContain(pkg)
      expect(installed.has(source), `scripts/install-system-deps.sh installs ${source}`).toBe(true)
    }
  })

  it('every program run by name in test/, bench/ and scripts/ is on the list', () => {
    const names = new Set(listed.map((l) => l.program))
    const call = /\b(?:spawn|spawnSync|execFile|execFileSync|run)\(\s*['"]([a-zA-Z0-9_.-]+)['"]/g
    const unlisted = ['test', 'bench', 'scripts'].flatMap(sourceFiles).flatMap((file) =>
      [...read(file).matchAll(call)].map((m) => m[1]!).filter((program) => !names.has(program)).map((program) => `${file}: ${program}`),
    )
    expect(unlisted).toEqual([])
  })
})
