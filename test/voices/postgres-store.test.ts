import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../lib/index.js'
import { SharedDatabase } from '../../lib/postgres/database.js'
import { MIGRATIONS } from '../../lib/postgres/migrations.js'
import { PostgresVoiceStore } from '../../lib/voices/postgres-store.js'
import { startPostgres, type PostgresServer } from '../helpers/postgres.js'
import { newVoice } from '../helpers/voices.js'
import { voiceStoreContract } from './store-contract.js'

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
}, 30_000)
afterAll(() => server.remove())

voiceStoreContract('PostgreSQL', async () => {
  const database = await SharedDatabase.connect(server.url)
  return { store: new PostgresVoiceStore(database), close: () => database.close() }
})

describe('the PostgreSQL voice store shared by replicas', () => {
  it('migrates once when replicas start at the same moment', async () => {
    const replicas = await Promise.all(Array.from({ length: 4 }, () => SharedDatabase.connect(server.url)))
    const versions = await replicas[0]!.query<{ version: number }>('SELECT version FROM svc_tts_migrations ORDER BY version')
    expect(versions.map((row) => row.version)).toEqual(MIGRATIONS.map((_, i) => i + 1))
    await Promise.all(replicas.map((replica) => replica.close()))
  })

  it('sees a voice made, changed or deleted through another replica at its next request', async () => {
    const [a, b] = await Promise.all([SharedDatabase.connect(server.url), SharedDatabase.connect(server.url)])
    const storeA = new PostgresVoiceStore(a)
    const engineB = await createEngine({ voiceStore: new PostgresVoiceStore(b) })
    try {
      const { record } = await storeA.create(newVoice('Shared'))
      expect((await engineB.voices.get(record.voice_id)).name).toBe('Shared')
      const speech = await engineB.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Across replicas.', voice: { mode: 'id', id: record.voice_id } })
      expect(speech.length).toBeGreaterThan(10_000)
      await storeA.update(record.voice_id, { name: 'Renamed' })
      expect((await engineB.voices.get(record.voice_id)).name).toBe('Renamed')
      await storeA.delete(record.voice_id)
      await expect(engineB.voices.get(record.voice_id)).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND' })
    } finally {
      await engineB.close()
      await Promise.all([a.close(), b.close()])
    }
  })

  it('holds an owner to its quota when replicas clone at the same moment', async () => {
    const replicas = await Promise.all(Array.from({ length: 3 }, () => SharedDatabase.connect(server.url)))
    const stores = replicas.map((replica) => new PostgresVoiceStore(replica))
    const quota = { voices: 3, sampleBytes: 1024 * 1024 }
    const results = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => stores[i % 3]!.create(newVoice(`race${i}`, { owner: 'racer' }), quota)))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3)
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(6).fill('VOICE_QUOTA_EXCEEDED'))
    for (const r of results) if (r.status === 'fulfilled') await stores[0]!.delete(r.value.record.voice_id)
    await Promise.all(replicas.map((replica) => replica.close()))
  })

  it('answers STORE_UNAVAILABLE while the database is down, speaks the predefined voices, and recovers when it is back', async () => {
    const database = await SharedDatabase.connect(server.url)
    const store = new PostgresVoiceStore(database)
    const engine = await createEngine({ voiceStore: store })
    try {
      const { record } = await store.create(newVoice('Outage'))
      await server.stop()
      await expect(engine.voices.get(record.voice_id)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 })
      await expect(store.create(newVoice('Lost'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
      const predefined = (await engine.voices.list({ voice_type: 'PREDEFINED', limit: 1 })).voices[0]!
      expect((await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still here.', voice: { mode: 'id', id: predefined.voice_id } })).length).toBeGreaterThan(10_000)
      await server.restart()
      expect((await engine.voices.get(record.voice_id)).name).toBe('Outage')
      await store.delete(record.voice_id)
    } finally {
      await engine.close()
      await database.close()
    }
  }, 60_000)
})
