import { describe, expect, it } from 'vitest'
import { LANGUAGES, PREDEFINED_VOICES } from '../../lib/index.js'
import { uuidFromName } from '../../lib/voices/ids.js'
import { testEngine } from '../helpers/engine.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('predefined voices', async () => {
  const engine = await testEngine()

  it('pages through every voice exactly once with limit and cursor', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await engine.voices.list({ limit: 7, ...(cursor && { cursor }) })
      expect(page.voices.length).toBeLessThanOrEqual(7)
      seen.push(...page.voices.map((v) => v.voice_id))
      cursor = page.next_cursor ?? undefined
      pages++
    } while (cursor)
    expect(seen.length).toBe(PREDEFINED_VOICES.length)
    expect(new Set(seen).size).toBe(seen.length)
    expect(pages).toBe(Math.ceil(PREDEFINED_VOICES.length / 7))
  })

  it('has the SPEC voice-record fields, UUID ids, and at least two voices per language', async () => {
    const { voices } = await engine.voices.list({ limit: 100 })
    for (const v of voices) {
      expect(v.voice_id).toMatch(UUID)
      expect(v.voice_type).toBe('PREDEFINED')
      expect(['Male', 'Female']).toContain(v.gender)
      expect(new Date(v.created_at).toISOString()).toBe(v.created_at)
      expect(new Date(v.updated_at).toISOString()).toBe(v.updated_at)
      expect(v.name.length).toBeGreaterThan(0)
      expect(v.description.length).toBeGreaterThan(0)
    }
    for (const language of LANGUAGES) {
      const genders = voices.filter((v) => v.language === language).map((v) => v.gender)
      expect(genders).toContain('Male')
      expect(genders).toContain('Female')
    }
    expect(voices.filter((v) => v.language === 'en').length).toBeGreaterThanOrEqual(4)
  })

  it('ids are derived from names and never change', () => {
    expect(uuidFromName('svc-tts/predefined/en/Sarah')).toBe(PREDEFINED_VOICES[0]!.record.voice_id)
    // Pinned: a change here breaks every client that stored a voice id.
    expect(PREDEFINED_VOICES[0]!.record.voice_id).toBe('f0d77cac-2962-5f1e-a89a-dac972695bbd')
  })

  it('gets one voice by id, and rejects unknown ids and cursors', async () => {
    const first = PREDEFINED_VOICES[3]!.record
    expect(await engine.voices.get(first.voice_id)).toEqual(first)
    await expect(engine.voices.get('nope')).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
    await expect(engine.voices.list({ cursor: 'nope' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    await expect(engine.voices.list({ limit: 0 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
  })
})
