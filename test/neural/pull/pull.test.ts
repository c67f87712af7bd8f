/**
 * Pulling packs from a local hub that answers as the real one does (hub-server.ts): what lands on
 * disk, byte for byte, and what was fetched to get it there; resume, corruption, aborts, concurrent
 * pulls, unknown names; then the pulled voice speaks.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId } from '../../../lib/index.js'
import { listInstalledModels, pullModels, removeModel } from '../../../lib/neural/index.js'
import { FIXTURES, KOKORO } from '../fixtures.js'
import { COMMIT, PIPER_VOICE, PIPER_VOICE_DIR, startHub, type LocalHub } from './hub-server.js'

const execFileAsync = promisify(execFile)
let hub: LocalHub
let dir: string

beforeEach(async () => {
  hub = await startHub()
  dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-pull-'))
})
afterEach(async () => {
  await hub.close()
  await rm(dir, { recursive: true, force: true })
})

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')
const MODEL_PATH = `${PIPER_VOICE_DIR}/${PIPER_VOICE}.onnx`
const cdnGets = (blob: string) => hub.requests.filter((r) => r.server === 'cdn' && r.path.startsWith(`/blobs/${blob}`))
const modelSha = () => sha256(path.join(FIXTURES, `${PIPER_VOICE}.onnx`))

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    return (error as { code?: string }).code
  }
  return undefined
}

describe('pull', () => {
  it('installs a Piper voice: its files byte for byte, a manifest of their digests, the token sent to the hub only', async () => {
    hub.requireToken('hf_secret')
    const progress: number[] = []
    const [pulled] = await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url, token: 'hf_secret', onProgress: (p) => progress.push(p.bytes) })
    const target = path.join(dir, PIPER_VOICE)
    expect(pulled).toMatchObject({ name: PIPER_VOICE, directory: target, alreadyInstalled: false })
    for (const file of [`${PIPER_VOICE}.onnx`, `${PIPER_VOICE}.onnx.json`]) expect(sha256(path.join(target, file)), file).toBe(sha256(path.join(FIXTURES, file)))
    expect(readdirSync(target).sort()).toEqual([`${PIPER_VOICE}.onnx`, `${PIPER_VOICE}.onnx.json`, 'svc-tts.pack.json'])
    const manifest = JSON.parse(readFileSync(path.join(target, 'svc-tts.pack.json'), 'utf8'))
    expect(manifest).toMatchObject({ name: PIPER_VOICE, type: 'piper', languages: ['en_US'], quality: 'medium', commit: COMMIT })
    expect(manifest.files[0]).toMatchObject({ path: `${PIPER_VOICE}.onnx`, sha256: modelSha() })
    // The model (an LFS file) came through the redirect; the CDN never saw the token.
    expect(cdnGets(modelSha())).toHaveLength(1)
    expect(hub.requests.filter((r) => r.server === 'cdn').every((r) => r.authorization === undefined)).toBe(true)
    expect(hub.requests.filter((r) => r.server === 'hub').every((r) => r.authorization === 'Bearer hf_secret')).toBe(true)
    const size = manifest.files.reduce((sum: number, f: { size: number }) => sum + f.size, 0)
    expect(progress.at(-1)).toBe(size)
    expect(listInstalledModels(dir).map((m) => [m.name, m.size])).toEqual([[PIPER_VOICE, size]])
    // Nothing of the work is left beside it.
    expect(readdirSync(path.join(dir, '.pulls'))).toEqual([])
  })

  it('a download cut at half resumes from there: the first half is not fetched again', async () => {
    const whole = readFileSync(path.join(FIXTURES, `${PIPER_VOICE}.onnx`))
    const half = Math.floor(whole.length / 2)
    hub.cutNext(MODEL_PATH, half)
    // The connection drops once the half is on disk.
    const cut = pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url, onProgress: (p) => { if (p.fileBytes === half) hub.dropCut() } })
    expect(await codeOf(cut)).toBe('DOWNLOAD_FAILED')
    expect(existsSync(path.join(dir, PIPER_VOICE))).toBe(false)
    expect(readFileSync(path.join(dir, '.pulls', PIPER_VOICE, `${PIPER_VOICE}.onnx`)).equals(whole.subarray(0, half))).toBe(true)
    const [pulled] = await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url })
    expect(cdnGets(modelSha()).map((r) => r.range)).toEqual([undefined, `bytes=${half}-`])
    const config = readFileSync(path.join(FIXTURES, `${PIPER_VOICE}.onnx.json`))
    expect(pulled!.fetchedBytes).toBe(whole.length - half + config.length)
    expect(sha256(path.join(dir, PIPER_VOICE, `${PIPER_VOICE}.onnx`))).toBe(modelSha())
  })

  it('a corrupted byte is CHECKSUM_MISMATCH, and nothing is installed or left to resume from', async () => {
    hub.corrupt(MODEL_PATH, 1000)
    expect(await codeOf(pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url }))).toBe('CHECKSUM_MISMATCH')
    expect(existsSync(path.join(dir, PIPER_VOICE))).toBe(false)
    expect(listInstalledModels(dir)).toEqual([])
    expect(existsSync(path.join(dir, '.pulls', PIPER_VOICE, `${PIPER_VOICE}.onnx`))).toBe(false)
  })

  it('a corrupted Kokoro style is caught by the hub\'s SHA-256 (x-linked-etag) where the catalogue has no MD5', async () => {
    hub.corrupt('voices/am_michael.bin', 5)
    expect(await codeOf(pullModels(['kokoro-v1.0'], { modelsDir: dir, endpoint: hub.url }))).toBe('CHECKSUM_MISMATCH')
    expect(listInstalledModels(dir)).toEqual([])
  })

  it('an aborted pull is ABORTED and installs nothing', async () => {
    const controller = new AbortController()
    const pull = pullModels(['kokoro-v1.0'], {
      modelsDir: dir, endpoint: hub.url, signal: controller.signal,
      onProgress: (p) => { if (p.file === 'voices/af_heart.bin') controller.abort() },
    })
    expect(await codeOf(pull)).toBe('ABORTED')
    expect(listInstalledModels(dir)).toEqual([])
  })

  it('two pulls of one pack at once end with one good copy, its files fetched once', async () => {
    const [a, b] = await Promise.all([
      pullModels(['kokoro-v1.0'], { modelsDir: dir, endpoint: hub.url }),
      pullModels(['kokoro-v1.0'], { modelsDir: dir, endpoint: hub.url }),
    ])
    expect([a[0]!.alreadyInstalled, b[0]!.alreadyInstalled].sort()).toEqual([false, true])
    expect(readdirSync(dir).sort()).toEqual(['.pulls', 'kokoro-v1.0'])
    const target = path.join(dir, 'kokoro-v1.0')
    for (const file of ['model.onnx', 'voices/af_heart.bin', 'voices/am_michael.bin']) expect(sha256(path.join(target, file)), file).toBe(sha256(path.join(KOKORO, file)))
    expect(hub.requests.filter((r) => r.server === 'cdn')).toHaveLength(3)
  })

  it('two processes pulling one pack at once end with one good copy, its files fetched once', async () => {
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'children/pull-into.ts')
    const pull = () => execFileAsync(process.execPath, ['--import', 'tsx', child, hub.url, dir, 'kokoro-v1.0'], { encoding: 'utf8', timeout: 60_000 })
    const outcomes = (await Promise.all([pull(), pull()])).map(({ stdout }) => JSON.parse(stdout) as Record<string, unknown>)
    for (const outcome of outcomes) expect(outcome).toEqual({ ok: true, installed: ['kokoro-v1.0'], entries: ['.pulls', 'kokoro-v1.0'], work: [] })
    expect(sha256(path.join(dir, 'kokoro-v1.0', 'voices/am_michael.bin'))).toBe(sha256(path.join(KOKORO, 'voices/am_michael.bin')))
    expect(hub.requests.filter((r) => r.server === 'cdn')).toHaveLength(3)
  }, 70_000)

  it('a lock left by a process that died is taken over', async () => {
    await mkdir(path.join(dir, '.pulls'))
    await writeFile(path.join(dir, '.pulls', `${PIPER_VOICE}.lock`), '999999999')
    const [pulled] = await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url })
    expect(pulled!.alreadyInstalled).toBe(false)
    expect(readdirSync(path.join(dir, '.pulls'))).toEqual([])
  })

  it('an unknown name lists the closest names', async () => {
    let thrown: unknown
    try {
      await pullModels(['en_US-fixture-med'], { modelsDir: dir, endpoint: hub.url })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'MODEL_NOT_IN_CATALOGUE' })
    expect((thrown as { extra: { closest: string[] } }).extra.closest[0]).toBe(PIPER_VOICE)
    expect(existsSync(path.join(dir, '.pulls'))).toBe(false)
  })

  it('a hub that refuses the token is DOWNLOAD_FAILED pointing at HF_TOKEN', async () => {
    hub.requireToken('hf_right')
    let thrown: unknown
    try {
      await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url, token: 'hf_wrong' })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'DOWNLOAD_FAILED' })
    expect((thrown as Error).message).toMatch(/HTTP 401.*HF_TOKEN/)
  })

  it('rm removes an installed pack whole; an unknown one is MODEL_NOT_FOUND', async () => {
    await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url })
    expect(await codeOf(removeModel('en_US-other-medium', { modelsDir: dir }))).toBe('MODEL_NOT_FOUND')
    await removeModel(PIPER_VOICE, { modelsDir: dir })
    expect(listInstalledModels(dir)).toEqual([])
    expect(readdirSync(dir).sort()).toEqual(['.pulls'])
    expect(readdirSync(path.join(dir, '.pulls'))).toEqual([])
  })

  it('the pulled voice speaks, and its audio is the fixture\'s own', async () => {
    const [pulled] = await pullModels([PIPER_VOICE], { modelsDir: dir, endpoint: hub.url })
    const request = (model_id: 'pulled' | 'original') => ({
      model_id, transcript: 'Hello world.', speed: 1, voice: { mode: 'id' as const, id: packVoiceId({ type: 'piper', name: PIPER_VOICE }, 'default') },
      output_format: { container: 'raw' as const, encoding: 'pcm_s16le' as const, sample_rate: 22050 as const },
    })
    const engine = await createEngine({
      models: {
        pulled: { type: 'piper', path: path.join(pulled!.directory, `${PIPER_VOICE}.onnx`) },
        original: { type: 'piper', path: path.join(FIXTURES, `${PIPER_VOICE}.onnx`) },
      },
    })
    try {
      const heard = await engine.synthesize(request('pulled'))
      expect(heard.length).toBeGreaterThan(1000)
      expect(heard.equals(await engine.synthesize(request('original')))).toBe(true)
    } finally {
      await engine.close()
    }
  })
})

describe.skipIf(process.getuid?.() !== 0)('a models directory on a full or read-only disk (a tmpfs in a mount namespace of its own: needs root)', () => {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'children/pull-into.ts')
  // Asynchronous: the hub serving the child runs on this process's event loop.
  const pullOn = async (mount: string) => {
    const { stdout } = await execFileAsync('unshare', ['-m', 'sh', '-c', `mount -t tmpfs -o ${mount} tmpfs "$0" && "$1" --import tsx "$2" "$3" "$0" kokoro-v1.0`,
      dir, process.execPath, child, hub.url], { encoding: 'utf8', timeout: 60_000 })
    return JSON.parse(stdout.trim()) as Record<string, unknown>
  }

  it('a full disk is STORAGE_FULL, with nothing installed and the partial files given back', async () => {
    // 256 KiB: the model and the first style fit, the second style (510 KiB) does not.
    expect(await pullOn('size=256k')).toEqual({ code: 'STORAGE_FULL', status: 507, installed: [], entries: ['.pulls'], work: [] })
  }, 70_000)

  it('a read-only directory is IO_FAILED, and nothing is written', async () => {
    expect(await pullOn('ro')).toEqual({ code: 'IO_FAILED', status: 500, installed: [], entries: [], work: [] })
  }, 70_000)
})
