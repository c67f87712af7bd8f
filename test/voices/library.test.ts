import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, SqliteVoiceStore } from '../../lib/index.js'
import { newVoice } from '../helpers/voices.js'
import { voiceStoreContract } from './store-contract.js'

voiceStoreContract('SQLite', async () => {
  const store = new SqliteVoiceStore(':memory:')
  return { store, close: () => store.close() }
})

describe('voice database', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-voices-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps cloned voices across engines opened on the same dataDir, in WAL mode at the latest schema', async () => {
    const first = await createEngine({ dataDir: dir })
    const id = await first.voices.list({ voice_type: 'CUSTOM' }).then((p) => p.voices.length)
    expect(id).toBe(0)
    await first.close()
    const db = new SqliteVoiceStore(path.join(dir, 'voices.db'))
    const { record } = await db.create(newVoice('Durable'))
    await db.close()
    const second = await createEngine({ dataDir: dir })
    expect(await second.voices.get(record.voice_id)).toEqual(record)
    await second.close()
    await expect(second.voices.get(record.voice_id)).rejects.toMatchObject({ code: 'ENGINE_CLOSED' })
    const raw = new Database(path.join(dir, 'voices.db'), { readonly: true })
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(raw.pragma('user_version', { simple: true })).toBe(4)  // the fourth migration added the pronunciation dictionaries
    raw.close()
  })

  it('refuses a database from a newer svc-tts', () => {
    const file = path.join(dir, 'future.db')
    const raw = new Database(file)
    raw.pragma('user_version = 99')
    raw.close()
    expect(() => new SqliteVoiceStore(file)).toThrow(/newer/)
  })
})
