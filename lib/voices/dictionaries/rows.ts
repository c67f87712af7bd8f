/** A dictionary version as the stores' tables hold it (SQLite, PostgreSQL). */
import type { Dictionary } from './types.js'

export interface DictionaryRow {
  dictionary_id: string
  version: number
  name: string
  /** JSON DictionaryRule[]. */
  rules: string
  created_at: string
}

export const dictionaryFromRow = (row: DictionaryRow): Dictionary => ({ ...row, rules: JSON.parse(row.rules) as Dictionary['rules'] })
