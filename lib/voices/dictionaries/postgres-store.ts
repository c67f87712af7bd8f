/**
 * Dictionaries in the database replicas share. Versions are numbered in the transaction that
 * writes them, under a lock per dictionary, so two updates at once through two replicas make two
 * versions. A version never changes once written, so readers may keep it; a deletion is announced
 * to every replica, which drops what it kept of that dictionary.
 */
import { EVERY_TOPIC, type SharedDatabase } from '../../postgres/database.js'
import { dictionaryFromRow, type DictionaryRow } from './rows.js'
import type { Dictionary, DictionaryStore, DictionarySummary } from './types.js'

const DELETED = 'dictionary-deleted:'

export class PostgresDictionaryStore implements DictionaryStore {
  /** `database` stays its owner's to close. */
  constructor(private readonly database: SharedDatabase) {}

  async list(): Promise<DictionarySummary[]> {
    const rows = await this.database.query<DictionarySummary & { rule_count: string }>(
      `SELECT d.dictionary_id, d.version, d.name, d.created_at, json_array_length(d.rules::json) AS rule_count
         FROM dictionaries d
         JOIN (SELECT dictionary_id, max(version) AS version, min(created_at) AS first FROM dictionaries GROUP BY dictionary_id) latest
           USING (dictionary_id, version)
        ORDER BY latest.first, d.dictionary_id`,
    )
    return rows.map((row) => ({ ...row, rule_count: Number(row.rule_count) }))
  }

  async get(dictionaryId: string, version?: number): Promise<Dictionary | undefined> {
    const [row] = version === undefined
      ? await this.database.query<DictionaryRow>('SELECT * FROM dictionaries WHERE dictionary_id = $1 ORDER BY version DESC LIMIT 1', [dictionaryId])
      : await this.database.query<DictionaryRow>('SELECT * FROM dictionaries WHERE dictionary_id = $1 AND version = $2', [dictionaryId, version])
    return row && dictionaryFromRow(row)
  }

  addVersion(dictionary: Omit<Dictionary, 'version'>, requireExisting: boolean): Promise<Dictionary | undefined> {
    return this.database.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc_tts_dictionary:${dictionary.dictionary_id}`])
      const [latest] = (await client.query<{ version: number | null }>('SELECT max(version) AS version FROM dictionaries WHERE dictionary_id = $1', [dictionary.dictionary_id])).rows
      if (requireExisting && latest?.version == null) return undefined
      const version = (latest?.version ?? 0) + 1
      await client.query('INSERT INTO dictionaries (dictionary_id, version, name, rules, created_at) VALUES ($1, $2, $3, $4, $5)', [
        dictionary.dictionary_id, version, dictionary.name, JSON.stringify(dictionary.rules), dictionary.created_at,
      ])
      return { ...dictionary, version }
    })
  }

  delete(dictionaryId: string): Promise<boolean> {
    return this.database.transaction(async (client) => {
      const deleted = ((await client.query('DELETE FROM dictionaries WHERE dictionary_id = $1', [dictionaryId])).rowCount ?? 0) > 0
      if (deleted) await this.database.notify(DELETED + dictionaryId, client)
      return deleted
    })
  }

  watch(deleted: (dictionaryId?: string) => void): void {
    this.database.on('change', (topic) => {
      if (topic.startsWith(DELETED)) deleted(topic.slice(DELETED.length))
      // The notifications were lost for a while: any dictionary may have been deleted meanwhile.
      else if (topic === EVERY_TOPIC) deleted()
    })
  }

  async close(): Promise<void> {}
}
