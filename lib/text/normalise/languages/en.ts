import type { LanguageRules } from '../rules.js'

const ORDINAL_SUFFIX: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' }
let ordinals: Intl.PluralRules | undefined  // made on first use (see normalise/index.ts)

export const en: LanguageRules = {
  locale: 'en',
  abbreviations: {
    'Dr.': 'Doctor', 'Mr.': 'Mister', 'Mrs.': 'Missus', 'Ms.': 'Miz', 'Prof.': 'Professor', 'St.': 'Saint',
    'Jr.': 'Junior', 'Sr.': 'Senior', 'vs.': 'versus', 'etc.': 'etcetera', 'e.g.': 'for example', 'i.e.': 'that is',
    'approx.': 'approximately', 'Inc.': 'Incorporated', 'Ltd.': 'Limited', 'No.': 'number', 'Mt.': 'Mount', 'Ave.': 'Avenue',
    'Jan.': 'January', 'Feb.': 'February', 'Aug.': 'August', 'Sept.': 'September', 'Oct.': 'October', 'Nov.': 'November', 'Dec.': 'December',
  },
  abbreviationsAfterName: { 'St.': 'Street', 'Dr.': 'Drive' },
  currencies: {
    $: { major: { one: 'dollar', other: 'dollars' }, minor: { one: 'cent', other: 'cents' } },
    USD: { major: { one: 'dollar', other: 'dollars' }, minor: { one: 'cent', other: 'cents' } },
    '€': { major: { one: 'euro', other: 'euros' }, minor: { one: 'cent', other: 'cents' } },
    EUR: { major: { one: 'euro', other: 'euros' }, minor: { one: 'cent', other: 'cents' } },
    '£': { major: { one: 'pound', other: 'pounds' }, minor: { one: 'penny', other: 'pence' } },
    GBP: { major: { one: 'pound', other: 'pounds' }, minor: { one: 'penny', other: 'pence' } },
    '¥': { major: { one: 'yen', other: 'yen' }, minor: { one: 'sen', other: 'sen' } },
  },
  decimalSeparator: '.',
  currencyJoiner: 'and',
  units: {
    km: { one: 'kilometre', other: 'kilometres' }, m: { one: 'metre', other: 'metres' }, cm: { one: 'centimetre', other: 'centimetres' },
    mm: { one: 'millimetre', other: 'millimetres' }, kg: { one: 'kilogram', other: 'kilograms' }, g: { one: 'gram', other: 'grams' },
    mg: { one: 'milligram', other: 'milligrams' }, l: { one: 'litre', other: 'litres' }, ml: { one: 'millilitre', other: 'millilitres' },
    'km/h': { one: 'kilometre per hour', other: 'kilometres per hour' }, mph: { one: 'mile per hour', other: 'miles per hour' },
    mi: { one: 'mile', other: 'miles' }, ft: { one: 'foot', other: 'feet' }, lb: { one: 'pound', other: 'pounds' },
    lbs: { one: 'pound', other: 'pounds' }, oz: { one: 'ounce', other: 'ounces' }, h: { one: 'hour', other: 'hours' },
    min: { one: 'minute', other: 'minutes' }, s: { one: 'second', other: 'seconds' }, ms: { one: 'millisecond', other: 'milliseconds' },
    '°C': { one: 'degree Celsius', other: 'degrees Celsius' }, '°F': { one: 'degree Fahrenheit', other: 'degrees Fahrenheit' },
    GB: { one: 'gigabyte', other: 'gigabytes' }, MB: { one: 'megabyte', other: 'megabytes' }, kB: { one: 'kilobyte', other: 'kilobytes' },
  },
  percent: { other: 'percent' },
  months: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  dateOrder: 'mdy',
  formatDate: (day, month, year) => `${month} ${day}${ORDINAL_SUFFIX[(ordinals ??= new Intl.PluralRules('en', { type: 'ordinal' })).select(day)] ?? 'th'} ${year}`,
}
