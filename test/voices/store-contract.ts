/**
 * What every voice store must do, run against each store (SQLite, PostgreSQL): paging with
 * changes between pages, predefined voices first, filters, get, update, batch, delete, errors,
 * previews, quotas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES, type Engine } from '../../lib/index.js'
import type { VoiceStore } from '../../lib/voices/types.js'
import { decodeWav } from '../helpers/audio.js'
import { newVoice } from '../helpers/voices.js'

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

export function voiceStoreContract(name: string, open: () => Promise<{ store: VoiceStore; close(): Promise<void> }>): void {
  describe(`the voice store contract on ${name}`, () => {
    let store: VoiceStore
    let engine: Engine
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await open())
      engine = await createEngine({ voiceStore: store })
    })
    afterAll(async () => {
      await engine.close()
      await close()
    })

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
    it('refuses a voice past the quota of its owner, counting only that owner\'s voices', async () => {
      const quota = { voices: 2, sampleBytes: 10 * 1024 * 1024 }
      const first = await store.create(newVoice('q1', { owner: 'key-a' }), quota)
      const second = await store.create(newVoice('q2', { owner: 'key-a' }), quota)
      await expect(store.create(newVoice('q3', { owner: 'key-a' }), quota)).rejects.toMatchObject({ code: 'VOICE_QUOTA_EXCEEDED', status: 403 })
      const other = await store.create(newVoice('q4', { owner: 'key-b' }), quota)
      expect((await store.usage!('key-a')).voices).toBe(2)
      for (const voice of [first, second, other]) await store.delete(voice.record.voice_id)
      expect(await store.usage!('key-a')).toEqual({ voices: 0, sampleBytes: 0 })
    })
  })
}
