/** Dictionaries in the voice library's SQLite file (its own connection: WAL lets both write in turn). */
import { VoiceDatabase } from '../sqlite-database.js'
import { dictionaryFromRow, type DictionaryRow } from './rows.js'
import type { Dictionary, DictionaryStore, DictionarySummary } from './types.js'

export class SqliteDictionaryStore implements DictionaryStore {
  private opened: VoiceDatabase | undefined

  /** `file`: the voice library's file, or ':memory:'; opened on first use, so that an engine that never uses dictionaries never needs SQLite for them. */
  constructor(private readonly file: string) {}

  private get database(): VoiceDatabase {
    this.opened ??= new VoiceDatabase(this.file)
    return this.opened
  }

  list(): Promise<DictionarySummary[]> {
    return this.database.read(() => {
      const rows = this.database.db
        .prepare(`SELECT d.dictionary_id, d.version, d.name, d.created_at, json_array_length(d.rules) AS rule_count
                    FROM dictionaries d
                    JOIN (SELECT dictionary_id, MAX(version) AS version, MIN(created_at) AS first FROM dictionaries GROUP BY dictionary_id) latest
                      USING (dictionary_id, version)
                   ORDER BY latest.first, d.dictionary_id`)
        .all() as DictionarySummary[]
      return rows
    })
  }

  get(dictionaryId: string, version?: number): Promise<Dictionary | undefined> {
    return this.database.read(() => {
      const row = (version === undefined
        ? this.database.db.prepare('SELECT * FROM dictionaries WHERE dictionary_id = ? ORDER BY version DESC LIMIT 1').get(dictionaryId)
        : this.database.db.prepare('SELECT * FROM dictionaries WHERE dictionary_id = ? AND version = ?').get(dictionaryId, version)) as DictionaryRow | undefined
      return row && dictionaryFromRow(row)
    })
  }

  addVersion(dictionary: Omit<Dictionary, 'version'>, requireExisting: boolean): Promise<Dictionary | undefined> {
    return this.database.write(() => {
      const { db } = this.database
      const latest = (db.prepare('SELECT MAX(version) AS version FROM dictionaries WHERE dictionary_id = ?').get(dictionary.dictionary_id) as { version: number | null }).version
      if (requireExisting && latest === null) return undefined
      const version = (latest ?? 0) + 1
      db.prepare('INSERT INTO dictionaries (dictionary_id, version, name, rules, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(dictionary.dictionary_id, version, dictionary.name, JSON.stringify(dictionary.rules), dictionary.created_at)
      return { ...dictionary, version }
    })
  }

  delete(dictionaryId: string): Promise<boolean> {
    return this.database.write(() => this.database.db.prepare('DELETE FROM dictionaries WHERE dictionary_id = ?').run(dictionaryId).changes > 0, { freesSpace: true })
  }

  async close(): Promise<void> {
    this.opened?.close()
  }
}
