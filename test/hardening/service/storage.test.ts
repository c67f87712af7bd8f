// Issue 20, cases 6, 9, 13 and 14: what one key may store, a full disk, another process holding
// the voice database's lock, and the files that hold recordings.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES } from '../../../lib/index.js'
import { mp3CloneForm, MP3_SAMPLE } from '../../helpers/samples.js'
import { testEngine } from '../../helpers/engine.js'
import { start, TEST_KEYS, KEY, type Running } from '../../helpers/server.js'
import { watchStalls } from '../../helpers/stall.js'

const root = path.resolve(import.meta.dirname, '../../..')
const scratch = () => mkdtempSync(path.join(tmpdir(), 'svc-tts-storage-'))
const SAMPLE_FILE = path.join(root, 'test/fixtures/voices/speaker.mp3')

const clone = (base: string, name: string) => fetch(`${base}/voices/clone`, { method: 'POST', headers: { 'x-api-key': KEY }, body: mp3CloneForm(name) })

describe('case 6: what one key may store', () => {
  let server: Running
  beforeAll(async () => {
    server = await start('standalone', { engine: await testEngine(), keys: TEST_KEYS, quotas: { voicesPerKey: 2 } })
  })
  afterAll(() => server.close())

  it('a key past its voice quota is refused 403 VOICE_QUOTA_EXCEEDED before its sample is read; a delete makes room again', async () => {
    const first = await clone(server.base, 'one')
    expect(first.status).toBe(200)
    expect((await clone(server.base, 'two')).status).toBe(200)
    const refused = await clone(server.base, 'three')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ error_code: 'VOICE_QUOTA_EXCEEDED', extra: { quota: 'voices', limit: 2 } })
    const { voice_id } = (await first.json()) as { voice_id: string }
    expect((await fetch(`${server.base}/voices/${voice_id}`, { method: 'DELETE', headers: { 'x-api-key': KEY } })).status).toBe(204)
    expect((await clone(server.base, 'three')).status).toBe(200)
  })

  it('the bytes of a key\'s samples are bounded too', async () => {
    const engine = await createEngine()
    const small = await start('standalone', { engine, keys: TEST_KEYS, quotas: { sampleBytesPerKey: MP3_SAMPLE.length + 100 } })
    try {
      expect((await clone(small.base, 'fits')).status).toBe(200)
      const refused = await clone(small.base, 'does not')
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({ error_code: 'VOICE_QUOTA_EXCEEDED', extra: { quota: 'sample_bytes' } })
    } finally {
      await small.close()
      await engine.close()
    }
  })
})

describe('case 13: another process holding the voice database\'s lock', () => {
  /** A second process that takes the write lock, says so, and holds it for `ms`. */
  function holdLock(file: string, ms: number): Promise<void> {
    const child = spawn(process.execPath, ['-e', `
      const Database = require('better-sqlite3')
      const db = new Database(${JSON.stringify(file)})
      db.exec('BEGIN IMMEDIATE')
      process.stdout.write('locked\\n')
      setTimeout(() => { db.exec('COMMIT'); db.close() }, ${ms})
    `], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    return new Promise((resolve) => child.stdout.once('data', () => resolve()))
  }

  it('a write waits for it off the event loop, then goes through; past 5 s it is VOICE_LIBRARY_BUSY', async () => {
    const dir = scratch()
    const engine = await createEngine({ dataDir: dir })
    try {
      const record = await engine.voices.clone(MP3_SAMPLE, { name: 'locked out', language: 'en' })
      const file = path.join(dir, 'voices.db')
      await holdLock(file, 1500)
      const stalls = watchStalls()
      const started = performance.now()
      const renaming = engine.voices.update(record.voice_id, { name: 'let in' }).then((voice) => ({ voice, ms: performance.now() - started }))
      // The event loop goes on meanwhile: a request speaks while the rename waits.
      const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id
      await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Meanwhile, I speak.', voice: { mode: 'id', id: sarah } })
      const spokeMs = performance.now() - started
      const renamed = await renaming
      expect(renamed.voice.name).toBe('let in')
      expect(renamed.ms).toBeGreaterThan(1000)
      expect(spokeMs).toBeLessThan(renamed.ms)
      expect(stalls.worstMs()).toBeLessThan(100)
      stalls.stop()

      await holdLock(file, 7000)
      await expect(engine.voices.update(record.voice_id, { name: 'too late' })).rejects.toMatchObject({ code: 'VOICE_LIBRARY_BUSY', status: 503 })
    } finally {
      await engine.close()
    }
  }, 30_000)
})

describe('case 14: the files that hold recordings', () => {
  it('the data directory and the voice database are their owner\'s only', async () => {
    const dir = path.join(scratch(), 'data')
    const engine = await createEngine({ dataDir: dir })
    try {
      await engine.voices.clone(MP3_SAMPLE, { name: 'private', language: 'en' })
      expect(statSync(dir).mode & 0o777).toBe(0o700)
      for (const file of ['voices.db', 'voices.db-wal']) expect(statSync(path.join(dir, file)).mode & 0o077, file).toBe(0)
    } finally {
      await engine.close()
    }
  })
})

describe.skipIf(process.getuid?.() !== 0)('case 9: a full disk (a tmpfs of its own, in a mount namespace of its own: needs root)', () => {
  it('renames and clones are coded errors, deletes still go through, speech goes on, and after a crash the server starts on the full disk', () => {
    const dir = scratch()
    const child = path.join(root, 'test/hardening/service/children/full-disk.ts')
    // Both phases in one namespace, so the tmpfs outlives the first (which dies by SIGKILL).
    const restart = JSON.parse(execFileSync('unshare', ['-m', 'sh', '-c',
      'mount -t tmpfs -o size=8m tmpfs "$0" && "$1" --import tsx "$2" "$0" fill "$3" > "$0.fill.json"; "$1" --import tsx "$2" "$0" restart "$3"',
      dir, process.execPath, child, SAMPLE_FILE], { cwd: root, encoding: 'utf8', timeout: 120_000 }).trim()) as Record<string, unknown>
    const filled = JSON.parse(readFileSync(`${dir}.fill.json`, 'utf8')) as Record<string, unknown>
    expect(filled.clone).toEqual({ code: 'STORAGE_FULL', status: 507 })
    // The reserve set aside at open is given up for the first write that would free room.
    expect(filled.rename).toEqual({ ok: true })
    expect(filled.delete).toEqual({ ok: true })
    expect(filled.speak).toEqual({ ok: true })
    expect(filled.speakClone).toEqual({ ok: true })
    // Restarted after the crash on a disk that is full again: it starts, speaks, and refuses writes with a code.
    expect(restart.speak).toEqual({ ok: true })
    expect(restart.voices).toEqual(['renamed'])
    expect(restart.speakClone).toEqual({ ok: true })
    expect(restart.rename).toEqual({ code: 'STORAGE_FULL', status: 507 })
  }, 150_000)
})

