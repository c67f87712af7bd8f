// npm run test:package: the package as a user meets it. Packs the tarball (prepack builds the
// prebuilt addon from source), checks what is in it, installs it into a fresh project with
// --ignore-scripts (so nothing can be compiled there) and speaks (scripts/package-smoke.mjs).
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const prebuildDir = `prebuilds/${process.platform}-${process.arch}`
// What every Linux with Node has: an addon may need these from the system, and nothing else.
const SYSTEM_CORE = /^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libdl\.so\.2|librt\.so\.1|libpthread\.so\.0|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$/
const problems = []
const check = (ok, problem) => ok || problems.push(problem)
const run = (command, args, options = {}) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options })
const seconds = (start) => ((performance.now() - start) / 1000).toFixed(1)

const work = mkdtempSync(path.join(tmpdir(), 'svc-tts-package-'))
try {
  let start = performance.now()
  // prepack's build log shares stdout with the JSON report, which comes last.
  const packed = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root })
  const [pack] = JSON.parse(packed.slice(packed.lastIndexOf('\n[') + 1))
  const tarball = path.join(work, pack.filename)
  const files = pack.files.map((f) => f.path)
  console.log(`packed ${pack.filename} in ${seconds(start)} s: ${(pack.size / 1048576).toFixed(1)} MiB, ` +
    `${(pack.unpackedSize / 1048576).toFixed(1)} MiB unpacked, ${files.length} files`)

  // Contents: the prebuilt addon with what it needs beside it; no tests, fixtures or build tree.
  check(files.some((f) => f.startsWith(`${prebuildDir}/`) && f.endsWith('.node')), `no addon in ${prebuildDir}/`)
  check(files.includes(`${prebuildDir}/libonnxruntime.so.1`), 'ONNX Runtime is not beside the addon')
  check(files.includes(`${prebuildDir}/espeak-ng-data/phondata`), "espeak-ng's data is not beside the addon")
  for (const f of files.filter((f) => /^(test|bench|build|third_party|node_modules)\/|\.(onnx|wav)$/.test(f))) problems.push(`${f} does not belong in the package`)
  // The prebuild is the addon, the shared libraries beside it and espeak-ng's data: no test program.
  for (const f of files.filter((f) => f.startsWith(`${prebuildDir}/`) && !/\.(node|so(\.\d+)*)$|\/espeak-ng-data\//.test(f))) problems.push(`${f} does not belong in the prebuild`)
  for (const f of ['dist/index.js', 'dist/bin/svc-tts.js', 'dist/bin/svc-tts-snapshot.cjs', 'bin/svc-tts', 'README.md', 'LICENSE', 'scripts/install.cjs', 'playground/index.html', 'dist/server/playground/assets.js']) check(files.includes(f), `${f} is missing`)

  // Every relative link in the README, and in the docs pages it links to, resolves inside the
  // package. The one exception is bench/: the measurements stay in the repository (tests and
  // benches are not packaged), so a link there must resolve in the repository instead.
  const REPOSITORY_ONLY = /^bench\//
  const linksOf = (markdown) => markdown
    .replace(/^\s*(`{3,}|~{3,})[\s\S]*?^\s*\1/gm, '')  // fenced code
    .replace(/(`+)[^\n]*?\1/g, '')                   // code spans
    .matchAll(/\]\(([^)#\s]+)[^)]*\)/g)
  const pages = ['README.md']
  for (const page of pages) {
    for (const [, target] of linksOf(readFileSync(path.join(root, page), 'utf8'))) {
      if (/^[a-z]+:/.test(target)) continue
      const linked = path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(target)))
      if (REPOSITORY_ONLY.test(linked)) {
        check(existsSync(path.join(root, linked)), `${page} links to ${target}, which is not in the repository`)
        continue
      }
      const packaged = files.includes(linked)
      check(packaged, `${page} links to ${target}, which is not in the package`)
      if (!packaged) continue
      if (page === 'README.md' && linked.startsWith('docs/') && linked.endsWith('.md') && !pages.includes(linked)) pages.push(linked)
    }
  }

  // The shared libraries in the prebuild need nothing from the system beyond its core.
  const prebuilt = path.join(root, prebuildDir)
  const bundled = new Set(readdirSync(prebuilt))
  for (const file of [...bundled].filter((f) => /\.(node|so(\.\d+)*)$/.test(f))) {
    const needed = [...run('readelf', ['-d', path.join(prebuilt, file)]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
    for (const library of needed) check(SYSTEM_CORE.test(library) || bundled.has(library), `${file} needs ${library}, neither system core nor bundled`)
  }
  console.log(`prebuild: ${[...bundled].sort().join(' ')}`)

  // A fresh project installs the tarball without running any install script.
  const project = path.join(work, 'app')
  mkdirSync(project)
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'svc-tts-user', private: true, type: 'module' }))
  start = performance.now()
  run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project })
  console.log(`installed into a fresh project in ${seconds(start)} s`)
  // better-sqlite3 fetches its native binary in its own install script, which --ignore-scripts
  // skips: the predefined voices speak without it (only cloning needs it).
  check(!existsSync(path.join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')), 'better-sqlite3 has a binary: the install ran scripts')
  check(!existsSync(path.join(project, 'node_modules/svc-tts/build')), 'the install built the addon')

  // Speak, with every symbol bound at load time (a missing one fails at once, not mid-request).
  cpSync(path.join(root, 'scripts/package-smoke.mjs'), path.join(project, 'smoke.mjs'))
  start = performance.now()
  process.stdout.write(run(process.execPath, ['smoke.mjs'], { cwd: project, env: { ...process.env, LD_BIND_NOW: '1' } }))
  console.log(`spoke in ${seconds(start)} s`)
  // The command line as an installed package's bin runs it: its launcher, then the bundle in
  // dist/bin/, which builds the startup snapshot the next say starts from (bin/svc-tts).
  const bin = path.join(project, 'node_modules/.bin/svc-tts')
  const cache = path.join(work, 'cache')
  const env = { ...process.env, XDG_CACHE_HOME: cache }
  run(bin, ['say', '-q', 'Hello there.', '--out', 'hello.wav'], { cwd: project, env })
  const wav = readFileSync(path.join(project, 'hello.wav'))
  check(wav.subarray(0, 4).toString() === 'RIFF' && wav.length > 22050, `the bin's say wrote ${wav.length} bytes, not a second of WAV`)
  const blobs = () => (existsSync(path.join(cache, 'svc-tts')) ? readdirSync(path.join(cache, 'svc-tts')).filter((f) => f.endsWith('.blob')) : [])
  const deadline = Date.now() + 120_000
  while (blobs().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250))
  check(blobs().length === 1, `the bin built no startup snapshot in ${cache} (${blobs().join(', ')})`)
  // From the snapshot, say needs none of the module bundle: without it, it still speaks the same bytes.
  const moduleBin = path.join(project, 'node_modules/svc-tts/dist/bin/svc-tts.js')
  renameSync(moduleBin, `${moduleBin}.away`)
  try {
    run(bin, ['say', '-q', 'Hello there.', '--out', 'hello-snapshot.wav'], { cwd: project, env })
    check(readFileSync(path.join(project, 'hello-snapshot.wav')).equals(wav), 'say from the startup snapshot wrote other bytes than the module bundle')
  } finally {
    renameSync(`${moduleBin}.away`, moduleBin)
  }
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error))
} finally {
  rmSync(work, { recursive: true, force: true })
}
if (problems.length) {
  console.error(`test:package failed:\n- ${problems.join('\n- ')}`)
  process.exit(1)
}
console.log('test:package passed')
