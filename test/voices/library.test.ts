import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES, SqliteVoiceStore } from '../../lib/index.js'
import { decodeWav } from '../helpers/audio.js'
import { newVoice } from '../helpers/voices.js'

const store = new SqliteVoiceStore(':memory:')
const engine = await createEngine({ voiceStore: store })
afterAll(() => store.close())

async function allIds(list: (cursor?: string) => Promise<{ voices: { voice_id: string }[]; next_cursor: string | null }>) {
  const ids: string[] = []
  let cursor: string | undefined
  do {
    const page = await list(cursor)
    ids.push(...page.voices.map((v) => v.voice_id))
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return ids
}

describe('voice library', () => {
  it('pages through 250 cloned voices with inserts and deletes in between, each survivor exactly once', async () => {
    const created: string[] = []
    for (let i = 0; i < 250; i++) created.push((await store.create(newVoice(`v${i}`))).record.voice_id)
    const deleted = new Set<string>()
    const added: string[] = []
    const seen: string[] = []
    let cursor: string | undefined
    let page = 0
    do {
      const result = await engine.voices.list({ limit: 17, voice_type: 'CUSTOM', ...(cursor && { cursor }) })
      seen.push(...result.voices.map((v) => v.voice_id))
      cursor = result.next_cursor ?? undefined
      // Between pages: delete one voice already seen and one not yet seen, and add one.
      const victims = [created[page * 3]!, created[249 - page * 5]!]
      for (const id of victims) if (!deleted.has(id)) { await engine.voices.delete(id); deleted.add(id) }
      if (cursor) added.push((await store.create(newVoice(`late${page}`))).record.voice_id)
      page++
    } while (cursor)
    const seenSet = new Set(seen)
    expect(seenSet.size).toBe(seen.length)  // nothing twice
    const survivors = [...created, ...added].filter((id) => !deleted.has(id))
    for (const id of survivors) expect(seenSet.has(id)).toBe(true)  // every survivor once
    // A voice deleted before its page came up is not listed.
    for (const id of seen) expect(created.includes(id) || added.includes(id)).toBe(true)
    for (const id of deleted) await engine.voices.delete(id).catch(() => undefined)
    for (const id of survivors) await engine.voices.delete(id)
  })

  it('lists predefined voices first, then cloned ones, with filters', async () => {
    const a = await store.create(newVoice('Filtered', { language: 'de', gender: 'Male' }))
    const all = await allIds((cursor) => engine.voices.list({ limit: 9, ...(cursor && { cursor }) }))
    expect(all.slice(0, PREDEFINED_VOICES.length)).toEqual(PREDEFINED_VOICES.map((v) => v.record.voice_id))
    expect(all.at(-1)).toBe(a.record.voice_id)
    const german = await allIds((cursor) => engine.voices.list({ limit: 1, language: 'de', gender: 'Male', ...(cursor && { cursor }) }))
    expect(german).toEqual([PREDEFINED_VOICES.find((v) => v.record.language === 'de' && v.record.gender === 'Male')!.record.voice_id, a.record.voice_id])
    const predefined = await engine.voices.list({ limit: 100, voice_type: 'PREDEFINED' })
    expect(predefined.voices.every((v) => v.voice_type === 'PREDEFINED')).toBe(true)
    expect(predefined.next_cursor).toBeNull()
    await engine.voices.delete(a.record.voice_id)
  })

  it('gets, updates, batch-gets and deletes a cloned voice', async () => {
    const { record } = await store.create(newVoice('Crud'))
    expect(await engine.voices.get(record.voice_id)).toEqual(record)
    expect(record.voice_type).toBe('CUSTOM')
    await new Promise((r) => setTimeout(r, 5))
    const updated = await engine.voices.update(record.voice_id, { name: 'Renamed', gender: 'Male', language: 'fr' })
    expect(updated).toMatchObject({ voice_id: record.voice_id, name: 'Renamed', gender: 'Male', language: 'fr', description: record.description })
    expect(updated.created_at).toBe(record.created_at)
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(record.updated_at))
    const batch = await engine.voices.getBatch([PREDEFINED_VOICES[0]!.record.voice_id, 'missing', record.voice_id])
    expect(batch.voices.map((v) => v.voice_id)).toEqual([PREDEFINED_VOICES[0]!.record.voice_id, record.voice_id])
    expect(batch.not_found).toEqual(['missing'])
    expect((await store.sample(record.voice_id))?.mediaType).toBe('audio/wav')
    await engine.voices.delete(record.voice_id)
    expect(await store.sample(record.voice_id)).toBeUndefined()  // the sample goes with the voice
    await expect(engine.voices.get(record.voice_id)).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
  })

  it('answers every error with its code', async () => {
    const predefined = PREDEFINED_VOICES[0]!.record.voice_id
    await expect(engine.voices.update(predefined, { name: 'x' })).rejects.toMatchObject({ code: 'VOICE_READ_ONLY', status: 403 })
    await expect(engine.voices.delete(predefined)).rejects.toMatchObject({ code: 'VOICE_READ_ONLY', status: 403 })
    await expect(engine.voices.update('missing', { name: 'x' })).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
    await expect(engine.voices.delete('missing')).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
    await expect(engine.voices.preview('missing')).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
    const { record } = await store.create(newVoice('Errors'))
    await expect(engine.voices.update(record.voice_id, { name: '' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(engine.voices.update(record.voice_id, { language: 'xx' as never })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(engine.voices.update(record.voice_id, { voice_type: 'PREDEFINED' } as never)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(engine.voices.getBatch([])).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(engine.voices.list({ cursor: Buffer.from('{"seq":-1}').toString('base64url') })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(engine.voices.list({ gender: 'Other' as 'Male' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    // A deleted voice is unknown to synthesis too.
    await engine.voices.delete(record.voice_id)
    const request = { model_id: 'svc_flash_v1.0' as const, transcript: 'hi', voice: { mode: 'id' as const, id: record.voice_id } }
    await expect(engine.synthesize(request)).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
  })

  it('previews a voice in its language, cached until the voice changes', async () => {
    const { record } = await store.create(newVoice('Preview', { language: 'de' }))
    const first = await engine.voices.preview(record.voice_id)
    const wav = decodeWav(first)
    expect(wav.data.length / 2).toBeGreaterThan(0.5 * wav.sampleRate)
    expect(await engine.voices.preview(record.voice_id)).toBe(first)  // the very same buffer: cached
    await engine.voices.update(record.voice_id, { language: 'fr' })
    const second = await engine.voices.preview(record.voice_id)
    expect(second).not.toBe(first)
    expect(decodeWav(second).data.length).toBeGreaterThan(0)
    await engine.voices.delete(record.voice_id)
  })
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
