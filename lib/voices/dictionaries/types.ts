/** Pronunciation dictionaries: named, versioned lists of rules, kept beside the voices. */

/** A word or phrase spoken as IPA (as `<phonemes>` takes it) or as an alias; matched case-insensitively unless `case_sensitive`. */
export type DictionaryRule = { text: string; case_sensitive?: boolean } & ({ phonemes: string } | { alias: string })

export interface Dictionary {
  dictionary_id: string
  /** 1 for a new dictionary; each update adds the next. */
  version: number
  name: string
  rules: DictionaryRule[]
  /** ISO 8601 UTC: when this version was made. */
  created_at: string
}

/** A dictionary as listed: its latest version, without its rules. */
export type DictionarySummary = Omit<Dictionary, 'rules'> & { rule_count: number }

/** Where dictionaries live: every version of each. */
export interface DictionaryStore {
  /** Latest versions, oldest dictionary first. */
  list(): Promise<DictionarySummary[]>
  /** A version, or the latest when `version` is omitted; undefined when there is none. */
  get(dictionaryId: string, version?: number): Promise<Dictionary | undefined>
  /**
   * Stores the next version of a dictionary (version 1 of a new one), numbered in the same
   * transaction, so two updates at once make two versions. `requireExisting`: undefined when the
   * dictionary does not exist (an update, rather than a creation).
   */
  addVersion(dictionary: Omit<Dictionary, 'version'>, requireExisting: boolean): Promise<Dictionary | undefined>
  /** False when there was no such dictionary. Deletes every version. */
  delete(dictionaryId: string): Promise<boolean>
  close(): Promise<void>
}
