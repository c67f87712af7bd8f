/**
 * The `svc-tts` launcher (bin/svc-tts) as the package's bin runs it, on the build in dist/: a
 * `say` without a startup snapshot runs the module bundle and builds one in the background; the
 * next `say` starts from it and writes the same bytes; a snapshot Node cannot start from is
 * removed; SVC_TTS_SNAPSHOT=0 and other commands build none.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { waitUntil } from '../helpers/wait.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const launcher = path.join(root, 'bin/svc-tts')
const SENTENCE = 'The birch canoe slid on the smooth planks.'

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'svc-tts-launcher-'))
}

/** The launcher with `cache` as its cache and the Node running the tests first on PATH. */
function launcherEnv(cache: string, env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, XDG_CACHE_HOME: cache, ...env }
}

function svcTts(cache: string, args: string[], env: Record<string, string | undefined> = {}, cwd = root) {
  return run(launcher, args, { cwd, env: launcherEnv(cache, env) })
}

const blobsIn = (cache: string) => (existsSync(path.join(cache, 'svc-tts')) ? readdirSync(path.join(cache, 'svc-tts')).filter((file) => file.endsWith('.blob')) : [])

describe('the svc-tts launcher', () => {
  it('builds a startup snapshot after a say, and the next say starts from it with the same bytes', async () => {
    const cache = tmp()
    const out = tmp()
    await svcTts(cache, ['say', '-q', SENTENCE, '-o', path.join(out, 'bundle.wav')])
    await waitUntil(() => blobsIn(cache).length === 1, 60_000)
    await svcTts(cache, ['say', '-q', SENTENCE, '-o', path.join(out, 'snapshot.wav')])
    const bundle = readFileSync(path.join(out, 'bundle.wav'))
    expect(bundle.length).toBeGreaterThan(44100)
    expect(readFileSync(path.join(out, 'snapshot.wav')).equals(bundle)).toBe(true)

    // From the snapshot, Node is the launcher's child: it reads the launcher's stdin, and Ctrl-C
    // (SIGINT to the process group) stops it as it stops the bundle, the audio so far kept.
    const piped = spawn(launcher, ['say', '-', '-q', '-o', path.join(out, 'stdin.wav')], { cwd: root, env: launcherEnv(cache), stdio: ['pipe', 'ignore', 'ignore'] })
    piped.stdin.end(SENTENCE)
    expect(await new Promise((resolve) => piped.once('exit', resolve))).toBe(0)
    expect(readFileSync(path.join(out, 'stdin.wav')).equals(bundle)).toBe(true)
    const long = spawn(launcher, ['say', '-q', `${SENTENCE} `.repeat(400), '-o', path.join(out, 'long.wav')], { cwd: root, env: launcherEnv(cache), stdio: 'ignore', detached: true })
    await waitUntil(() => existsSync(path.join(out, 'long.wav')) && statSync(path.join(out, 'long.wav')).size > 44100, 20_000)
    process.kill(-long.pid!, 'SIGINT')
    expect(await new Promise((resolve) => long.once('exit', resolve))).toBe(130)
    // The WAV's sizes are filled in: the say ended on its own handler, not killed.
    const kept = decodeWav(readFileSync(path.join(out, 'long.wav')))
    expect(kept.dataSize).toBe(kept.data.length)
    expect(kept.dataSize).toBeGreaterThan(44100)

    // A snapshot of the package in another folder runs nothing and says so, as Node does for another version's (14).
    const [blob] = blobsIn(cache)
    const elsewhere = await run(process.execPath, ['--snapshot-blob', path.join(cache, 'svc-tts', blob!), path.join(tmp(), 'svc-tts-snapshot.cjs'), '--version']).then(() => 0, (error: { code: number }) => error.code)
    expect(elsewhere).toBe(14)

    // The launcher starts from the snapshot it finds: one Node cannot read fails, is removed, and the command is not rerun.
    writeFileSync(path.join(cache, 'svc-tts', blob!), 'not a snapshot')
    const failed = await svcTts(cache, ['say', '-q', SENTENCE, '-o', path.join(out, 'damaged.wav')]).then(() => undefined, (error: { code: number }) => error)
    expect(failed?.code).toBe(134)
    expect(existsSync(path.join(out, 'damaged.wav'))).toBe(false)
    expect(blobsIn(cache)).toEqual([])
    // And the next say runs the module bundle again, and builds a new one.
    await svcTts(cache, ['say', '-q', SENTENCE, '-o', path.join(out, 'again.wav')])
    expect(readFileSync(path.join(out, 'again.wav')).equals(bundle)).toBe(true)
    await waitUntil(() => blobsIn(cache).length === 1, 60_000)
  }, 180_000)

  it("builds none with SVC_TTS_SNAPSHOT=0, nor for other commands, nor outside the user's own cache", async () => {
    const cache = tmp()
    await svcTts(cache, ['say', '-q', SENTENCE, '-o', path.join(tmp(), 'off.wav')], { SVC_TTS_SNAPSHOT: '0' })
    const { stdout } = await svcTts(cache, ['voices'])
    expect(stdout).toContain('Sarah')
    // With no HOME and a relative XDG_CACHE_HOME there is no cache of the user's: none in the
    // working folder, nor in a shared one.
    const cwd = tmp()
    await svcTts('relative-cache', ['say', '-q', SENTENCE, '-o', path.join(cwd, 'nohome.wav')], { HOME: undefined }, cwd)
    expect(existsSync(path.join(cwd, 'nohome.wav'))).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(existsSync(path.join(cache, 'svc-tts'))).toBe(false)
    expect(existsSync(path.join(cwd, 'relative-cache'))).toBe(false)
    expect(existsSync(path.join(tmpdir(), '.cache', 'svc-tts'))).toBe(false)
  }, 60_000)
})
