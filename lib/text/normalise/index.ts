/**
 * Per-language text normalisation: what a token such as "$3.50", "5km" or "12/05/2023" is
 * spoken as. The rules are data (languages/*.ts); this file only matches tokens against them.
 * Languages without a table (ar, ro, ja, he, hy, tr, hi, zh) rely on the backend's own rules.
 */
import type { Language } from '../types.js'
import { de } from './languages/de.js'
import { en } from './languages/en.js'
import { es } from './languages/es.js'
import { fr } from './languages/fr.js'
import { it } from './languages/it.js'
import { pt } from './languages/pt.js'
import { ru } from './languages/ru.js'
import type { LanguageRules, PluralForms } from './rules.js'

export interface TokenContext {
  previous?: string
  next?: string
}

export interface Normaliser {
  /** Whether a token ending in '.' is an abbreviation (so the period does not end a sentence). */
  isAbbreviation(token: string): boolean
  /** The spoken form of one whitespace-separated token, its punctuation kept; '' when it is silent. */
  normaliseToken(token: string, context?: TokenContext): string
}

const RULES: Partial<Record<Language, LanguageRules>> = { en, es, fr, de, it, pt, ru }

const LEADING_PUNCTUATION = new RegExp(`^[("'“‘«¿¡[]+`, 'u')
/** Read from the end by trailingPunctuationStart: an unanchored /[…]+$/ is quadratic on "....a". */
const TRAILING_PUNCTUATION = new Set(`.,;:!?)"'”’»]…`)
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/
const NUMERIC_DATE = /^(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})$/
/** Digit groups joined by - or . with at least 7 digits in all: a phone or account number. */
const DIGIT_RUN = /^\+?\d+(?:[-.]\d+)+$/
const MIN_DIGIT_RUN = 7

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

function pick(forms: PluralForms, plurals: Intl.PluralRules, amount: number): string {
  return forms[plurals.select(amount)] ?? forms.other
}

function trailingPunctuationStart(text: string): number {
  let start = text.length
  while (start > 0 && TRAILING_PUNCTUATION.has(text[start - 1]!)) start--
  return start
}

function splitPunctuation(token: string): [string, string, string] {
  const lead = LEADING_PUNCTUATION.exec(token)?.[0] ?? ''
  const rest = token.slice(lead.length)
  const coreEnd = trailingPunctuationStart(rest)
  return [lead, rest.slice(0, coreEnd), rest.slice(coreEnd)]
}

class RuleNormaliser implements Normaliser {
  /** Made on first use: an Intl object holds ICU state that a startup snapshot cannot keep. */
  private pluralRules: Intl.PluralRules | undefined
  /** An amount with optional grouping: "1,234.56" in English, "1.234,56" in German. */
  private readonly amount: string
  private readonly number: RegExp
  private readonly currency: RegExp
  private readonly withUnit: RegExp
  private readonly percent: RegExp

  private plurals(): Intl.PluralRules {
    return (this.pluralRules ??= new Intl.PluralRules(this.rules.locale))
  }

  constructor(private readonly rules: LanguageRules) {
    const decimal = escapeRegExp(rules.decimalSeparator)
    const group = rules.decimalSeparator === ',' ? '[. \u00a0\u202f]' : ','
    this.amount = `(\\d{1,3}(?:${group}\\d{3})+|\\d+)(?:${decimal}(\\d+))?`
    const symbols = Object.keys(rules.currencies).map(escapeRegExp).join('|')
    const units = Object.keys(rules.units).sort((a, b) => b.length - a.length).map(escapeRegExp).join('|')
    this.number = new RegExp(`^${this.amount}$`)
    this.currency = new RegExp(`^(?:(${symbols})\\s?${this.amount}|${this.amount}\\s?(${symbols}))$`, 'u')
    this.withUnit = new RegExp(`^${this.amount}(${units})$`, 'u')
    this.percent = new RegExp(`^${this.amount}\\s?%$`)
  }

  isAbbreviation(token: string): boolean {
    const [, core, trail] = splitPunctuation(token)
    return trail.startsWith('.') && this.rules.abbreviations[core + '.'] !== undefined
  }

  normaliseToken(token: string, context: TokenContext = {}): string {
    const [lead, core, trail] = splitPunctuation(token)
    if (trail.startsWith('.')) {
      const afterName = /^\p{Lu}/u.test(context.previous ?? '') ? this.rules.abbreviationsAfterName?.[core + '.'] : undefined
      const abbreviation = afterName ?? this.rules.abbreviations[core + '.']
      if (abbreviation !== undefined) return lead + abbreviation + trail.slice(1)
    }
    const spoken = this.expand(core, context)
    return spoken === '' && lead + trail === '' ? '' : lead + spoken + trail
  }

  /** The integer value and text of an amount, grouping removed. */
  private integer(digits: string): string {
    return digits.replace(/\D/g, '')
  }

  private money(symbol: string, whole: string, fraction: string | undefined): string {
    const rule = this.rules.currencies[symbol]!
    const major = this.integer(whole)
    const majorText = `${major} ${pick(rule.major, this.plurals(), Number(major))}`
    const minor = fraction === undefined ? 0 : Number(fraction.slice(0, 2).padEnd(2, '0'))
    if (minor === 0) return majorText
    const minorText = `${minor} ${pick(rule.minor, this.plurals(), minor)}`
    return Number(major) === 0 ? minorText : [majorText, this.rules.currencyJoiner, minorText].filter(Boolean).join(' ')
  }

  private numberValue(whole: string, fraction: string | undefined): number {
    return Number(`${this.integer(whole)}${fraction === undefined ? '' : `.${fraction}`}`)
  }

  private date(day: number, month: number, year: string): string | null {
    const monthName = this.rules.months[month - 1]
    if (monthName === undefined || day < 1 || day > 31) return null
    return this.rules.formatDate(day, monthName, year)
  }

  private expand(core: string, context: TokenContext): string {
    const rules = this.rules
    let match: RegExpExecArray | null
    if ((match = this.currency.exec(core))) {
      return match[1] !== undefined ? this.money(match[1], match[2]!, match[3]) : this.money(match[6]!, match[4]!, match[5])
    }
    // An amount and its currency written as two tokens ("3,50 €", "R$ 3,50") are read together by the amount.
    const previousCore = context.previous === undefined ? '' : splitPunctuation(context.previous)[1]
    const nextCore = context.next === undefined ? '' : splitPunctuation(context.next)[1]
    if ((match = this.number.exec(core))) {
      if (rules.currencies[nextCore]) return this.money(nextCore, match[1]!, match[2])
      if (rules.currencies[previousCore]) return this.money(previousCore, match[1]!, match[2])
    }
    const previousAmount = this.number.exec(previousCore)
    if (rules.currencies[core] && (previousAmount || this.number.test(nextCore))) return ''
    if (core === '%' && previousAmount) return pick(rules.percent, this.plurals(), this.numberValue(previousAmount[1]!, previousAmount[2]))
    if ((match = this.percent.exec(core))) {
      return `${this.spokenNumber(match[1]!, match[2])} ${pick(rules.percent, this.plurals(), this.numberValue(match[1]!, match[2]))}`
    }
    if ((match = this.withUnit.exec(core))) {
      return `${this.spokenNumber(match[1]!, match[2])} ${pick(rules.units[match[3]!]!, this.plurals(), this.numberValue(match[1]!, match[2]))}`
    }
    if (previousAmount && rules.units[core]) return pick(rules.units[core]!, this.plurals(), this.numberValue(previousAmount[1]!, previousAmount[2]))
    if ((match = ISO_DATE.exec(core))) return this.date(Number(match[3]), Number(match[2]), match[1]!) ?? core
    if ((match = NUMERIC_DATE.exec(core))) {
      const [first, second] = [Number(match[1]), Number(match[3])]
      const [day, month] = rules.dateOrder === 'dmy' ? [first, second] : [second, first]
      return this.date(day, month, match[4]!) ?? core
    }
    if (DIGIT_RUN.test(core) && core.replace(/\D/g, '').length >= MIN_DIGIT_RUN) {
      return core.replace(/^\+/, '').split(/[-.]/).map((group) => Array.from(group).join(' ')).join(', ')
    }
    return core
  }

  /** A number as the backend should read it: grouping removed, the language's decimal separator kept. */
  private spokenNumber(whole: string, fraction: string | undefined): string {
    return this.integer(whole) + (fraction === undefined ? '' : this.rules.decimalSeparator + fraction)
  }
}

/** Languages without rules: abbreviations and numbers are left to espeak-ng's own dictionaries. */
const PASS_THROUGH: Normaliser = {
  isAbbreviation: () => false,
  normaliseToken: (token) => token,
}

const normalisers = new Map<Language, Normaliser>()

export function normaliserFor(language: Language): Normaliser {
  let normaliser = normalisers.get(language)
  if (!normaliser) {
    const rules = RULES[language]
    normaliser = rules ? new RuleNormaliser(rules) : PASS_THROUGH
    normalisers.set(language, normaliser)
  }
  return normaliser
}

export type { LanguageRules, PluralForms } from './rules.js'
