/** What the dictionary operations take, checked once (parseWith). */
import * as z from 'zod'
import { strictObject } from '../../validation/parse.js'

/** Rules in one dictionary: the bench holds a sentence's lookups under 1 ms at this size. */
export const MAX_DICTIONARY_RULES = 10_000
/** Dictionaries one request may name. */
export const MAX_REQUEST_DICTIONARIES = 3

const phrase = z.string().trim().min(1).max(256)
const ruleBase = { text: phrase, case_sensitive: z.boolean().optional() }

export const dictionaryRuleSchema = z.union([
  strictObject({ ...ruleBase, phonemes: z.string().trim().min(1).max(256) }),
  strictObject({ ...ruleBase, alias: z.string().trim().min(1).max(1024) }),
])

export const createDictionarySchema = strictObject({
  name: z.string().trim().min(1).max(128),
  rules: z.array(dictionaryRuleSchema).max(MAX_DICTIONARY_RULES),
})

export const updateDictionarySchema = strictObject({
  name: z.string().trim().min(1).max(128).optional(),
  rules: z.array(dictionaryRuleSchema).max(MAX_DICTIONARY_RULES).optional(),
})

/** A request's `pronunciation_dictionaries`: which dictionaries, the latest version where none is named. */
export const dictionaryLocatorsSchema = z
  .array(strictObject({ id: z.string().min(1).max(128), version: z.number().int().min(1).optional() }))
  .max(MAX_REQUEST_DICTIONARIES)

export type CreateDictionary = z.input<typeof createDictionarySchema>
export type UpdateDictionary = z.input<typeof updateDictionarySchema>
export type DictionaryLocator = z.output<typeof dictionaryLocatorsSchema>[number]
