import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SharedDatabase } from '../../lib/postgres/database.js'
import { DictionaryLibrary } from '../../lib/voices/dictionaries/library.js'
import { PostgresDictionaryStore } from '../../lib/voices/dictionaries/postgres-store.js'
import { SqliteDictionaryStore } from '../../lib/voices/dictionaries/sqlite-store.js'
import type { DictionaryStore } from '../../lib/voices/dictionaries/types.js'
import { startPostgres, type PostgresServer } from '../helpers/postgres.js'

let postgres: PostgresServer
const databases: SharedDatabase[] = []
beforeAll(async () => {
  postgres = await startPostgres()
}, 30_000)
afterAll(async () => {
  await Promise.all(databases.map((database) => database.close()))
  await postgres.remove()
})

async function pgStore(): Promise<DictionaryStore> {
  const database = await SharedDatabase.connect(postgres.url)
  databases.push(database)
  return new PostgresDictionaryStore(database)
}

const STORES: [string, () => Promise<DictionaryStore>][] = [
  ['SQLite', async () => new SqliteDictionaryStore(':memory:')],
  ['PostgreSQL', pgStore],
]

describe.each(STORES)('the dictionary store contract on %s', (_name, open) => {
  it('keeps every version, lists the latest, numbers concurrent updates apart, and deletes every version', async () => {
    const library = new DictionaryLibrary(await open())
    const created = await library.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    expect(created.version).toBe(1)
    const updates = await Promise.all(Array.from({ length: 8 }, (_, i) => library.update(created.dictionary_id, { rules: [{ text: 'Nguyen', alias: `win ${i}` }] })))
    expect(updates.map((d) => d.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9])
    expect((await library.get(created.dictionary_id, 1)).rules).toEqual([{ text: 'Nguyen', phonemes: 'wɪn' }])
    const listed = (await library.list()).find((d) => d.dictionary_id === created.dictionary_id)
    expect(listed).toMatchObject({ version: 9, name: 'Names', rule_count: 1 })
    await library.delete(created.dictionary_id)
    await expect(library.get(created.dictionary_id, 1)).rejects.toMatchObject({ code: 'DICTIONARY_NOT_FOUND' })
  })
})

describe('dictionaries shared by replicas', () => {
  it('a version made through one replica is read by another; a dictionary deleted through one is gone from the other at once, its kept versions too', async () => {
    const [a, b] = [new DictionaryLibrary(await pgStore()), new DictionaryLibrary(await pgStore())]
    const created = await a.create({ name: 'Brands', rules: [{ text: 'svc-tts', alias: 'service TTS' }] })
    const updated = await b.update(created.dictionary_id, { rules: [{ text: 'svc-tts', alias: 'S V C T T S' }] })
    expect(updated.version).toBe(2)
    // A keeps version 1's lexicon once it has used it.
    expect(await a.lexicon([{ id: created.dictionary_id, version: 1 }])).toBeDefined()
    expect((await a.get(created.dictionary_id)).version).toBe(2)
    await b.delete(created.dictionary_id)
    const deadline = Date.now() + 1000
    for (;;) {
      const outcome = await a.lexicon([{ id: created.dictionary_id, version: 1 }]).then(() => 'kept', (error: { code?: string }) => error.code)
      if (outcome === 'DICTIONARY_NOT_FOUND') break
      if (Date.now() > deadline) throw new Error('replica A still speaks with a dictionary deleted through B')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })
})
