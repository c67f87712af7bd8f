/**
 * The shape of a language's normalisation data. Cardinals, decimals and times written with
 * digits are left to the backend (espeak-ng and flite read them correctly in these languages);
 * the rules rewrite what the backends misread: currency, units, dates, abbreviations,
 * phone-number-like digit runs, and ordinals where the voice has none.
 */

/** Word forms by CLDR plural category (Intl.PluralRules); `other` is required. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }

export interface CurrencyRule {
  major: PluralForms
  minor: PluralForms
}

export interface LanguageRules {
  /** BCP 47 tag for Intl.PluralRules. */
  locale: string
  /** Abbreviations as written (with their period) → spoken form. Matched case-sensitively. */
  abbreviations: Record<string, string>
  /** Readings that win after a capitalised word, where the abbreviation ends a name ("Main St." is Street, "St. Louis" Saint). */
  abbreviationsAfterName?: Record<string, string>
  /** Currency symbols or ISO codes → names. */
  currencies: Record<string, CurrencyRule>
  /** The decimal separator of amounts written in this language ("3.50" in English, "3,50" in German). */
  decimalSeparator: '.' | ','
  /** Joins major and minor amounts: "3 dollars and 50 cents". */
  currencyJoiner: string
  /** Unit symbols read after a number → names by plural. */
  units: Record<string, PluralForms>
  /** The word for %, by the plural of the number before it. */
  percent: PluralForms
  /** Month names, January first. */
  months: readonly string[]
  /** Order of numeric dates written with / or . */
  dateOrder: 'dmy' | 'mdy'
  /** Spoken form of a date; `day` is a number. */
  formatDate(day: number, month: string, year: string): string
}
