/**
 * `engine.dictionaries`: pronunciation dictionaries created, listed, read, updated (each update a
 * new version, the old ones kept) and deleted, and a request's dictionaries compiled into the
 * lexicon its planning applies. A version never changes, so its compiled rules are cached.
 */
import { randomUUID } from 'node:crypto'
import { TtsError } from '../../errors.js'
import { MAX_PHONEME_WORD_SYMBOLS, MAX_PHONEME_WORDS } from '../../text/bounds.js'
import { assertIpa } from '../../text/ipa/validate.js'
import { Lexicon, type LexiconRule } from '../../text/lexicon.js'
import { parseWith } from '../../validation/parse.js'
import { dictionaryToPls, rulesFromPls } from './pls.js'
import { createDictionarySchema, updateDictionarySchema, type CreateDictionary, type DictionaryLocator, type UpdateDictionary } from './schemas.js'
import type { Dictionary, DictionaryRule, DictionaryStore, DictionarySummary } from './types.js'

/** Versions and compiled lexicons kept: a request naming the same ones again costs no lookup or compilation. */
const CACHED_VERSIONS = 64

function notFound(id: string, version?: number): TtsError {
  const which = version === undefined ? `'${id}'` : `'${id}' version ${version}`
  return new TtsError('DICTIONARY_NOT_FOUND', `no pronunciation dictionary ${which}`)
}

/** A rule's IPA is checked as `<phonemes>` content is (the symbols a language voices are checked when it is spoken). */
function checkRules(rules: readonly DictionaryRule[]): void {
  rules.forEach((rule, index) => {
    if (!('phonemes' in rule)) return
    const words = rule.phonemes.split(/\s+/)
    const fail = (message: string) => new TtsError('INVALID_PHONEMES', `rule ${index} ('${rule.text}'): ${message}`, { extra: { rule: index } })
    if (words.length > MAX_PHONEME_WORDS) throw fail(`at most ${MAX_PHONEME_WORDS} IPA words, as in <phonemes>; use an alias for a longer phrase`)
    for (const ipa of words) {
      if (Array.from(ipa).length > MAX_PHONEME_WORD_SYMBOLS) throw fail(`an IPA word has at most ${MAX_PHONEME_WORD_SYMBOLS} symbols`)
      try {
        assertIpa({ ipa, start: 0, end: ipa.length })
      } catch (error) {
        throw fail(error instanceof Error ? error.message.replace(/^Invalid phonemes at offset \d+: /, '') : String(error))
      }
    }
  })
}

function lexiconRule(rule: DictionaryRule): LexiconRule {
  const matching = { text: rule.text, ...(rule.case_sensitive && { caseSensitive: true }) }
  return 'phonemes' in rule ? { ...matching, phonemes: rule.phonemes } : { ...matching, alias: rule.alias }
}

/** Least recently used first: a Map kept in order of use, the oldest dropped past `limit`. */
function remember<T>(cache: Map<string, T>, key: string, value: T, limit: number): T {
  cache.delete(key)
  cache.set(key, value)
  if (cache.size > limit) cache.delete(cache.keys().next().value!)
  return value
}

export class DictionaryLibrary {
  /** Versions by `id@version`. */
  private readonly versions = new Map<string, Promise<Dictionary>>()
  /** Lexicons by the versions they were compiled from, in order. */
  private readonly lexicons = new Map<string, Lexicon>()

  constructor(private readonly store: DictionaryStore) {}

  async create(input: CreateDictionary): Promise<Dictionary> {
    const { name, rules } = parseWith(createDictionarySchema, input, 'dictionary')
    checkRules(rules)
    const created = await this.store.addVersion({ dictionary_id: randomUUID(), name, rules: [...rules], created_at: new Date().toISOString() }, false)
    return created!
  }

  /** A dictionary made from a W3C PLS 1.0 document (rules in its order; see pls.ts). */
  createFromPls(name: string, pls: string): Promise<Dictionary> {
    return this.create({ name, rules: rulesFromPls(pls) })
  }

  /** A version of a dictionary (the latest when omitted) as a PLS document for `xmlLang`. */
  async toPls(dictionaryId: string, version?: number, xmlLang = 'en-US'): Promise<string> {
    return dictionaryToPls(await this.get(dictionaryId, version), xmlLang)
  }

  list(): Promise<DictionarySummary[]> {
    return this.store.list()
  }

  /** A version of a dictionary, the latest when `version` is omitted; DICTIONARY_NOT_FOUND when there is none. */
  async get(dictionaryId: string, version?: number): Promise<Dictionary> {
    const dictionary = await this.store.get(dictionaryId, version)
    if (!dictionary) throw notFound(dictionaryId, version)
    return dictionary
  }

  /** A new version with the name or rules changed; the versions before it stay as they were. */
  async update(dictionaryId: string, patch: UpdateDictionary): Promise<Dictionary> {
    const { name, rules } = parseWith(updateDictionarySchema, patch, 'dictionary update')
    if (rules) checkRules(rules)
    const latest = await this.get(dictionaryId)
    const next = { dictionary_id: dictionaryId, name: name ?? latest.name, rules: rules ? [...rules] : latest.rules, created_at: new Date().toISOString() }
    const updated = await this.store.addVersion(next, true)
    if (!updated) throw notFound(dictionaryId)
    return updated
  }

  async delete(dictionaryId: string): Promise<void> {
    if (!(await this.store.delete(dictionaryId))) throw notFound(dictionaryId)
    for (const cache of [this.versions, this.lexicons]) for (const key of cache.keys()) if (key.includes(`${dictionaryId}@`)) cache.delete(key)
  }

  /**
   * The lexicon of a request's dictionaries: their rules in the order named (for the same phrase,
   * the first dictionary's rule wins; a longer phrase wins over a shorter one whichever names it).
   */
  async lexicon(locators: readonly DictionaryLocator[]): Promise<Lexicon | undefined> {
    if (locators.length === 0) return undefined
    const dictionaries = await Promise.all(locators.map((locator) => this.version(locator)))
    const key = dictionaries.map((dictionary) => `${dictionary.dictionary_id}@${dictionary.version}`).join(' ')
    const known = this.lexicons.get(key)
    if (known) return remember(this.lexicons, key, known, CACHED_VERSIONS)
    return remember(this.lexicons, key, new Lexicon(dictionaries.flatMap((dictionary) => dictionary.rules.map(lexiconRule))), CACHED_VERSIONS)
  }

  /** A named version (cached: it never changes), or the latest (looked up each time: it may have moved on). */
  private async version({ id, version }: DictionaryLocator): Promise<Dictionary> {
    if (version === undefined) return this.get(id)
    const key = `${id}@${version}`
    const found = this.versions.get(key) ?? this.get(id, version)
    found.catch(() => this.versions.delete(key))
    return remember(this.versions, key, found, CACHED_VERSIONS)
  }
}
