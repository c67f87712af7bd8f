import type { LanguageRules } from '../rules.js'

export const fr: LanguageRules = {
  locale: 'fr',
  abbreviations: {
    'M.': 'monsieur', 'MM.': 'messieurs', 'Mme.': 'madame', 'Mlle.': 'mademoiselle', 'Dr.': 'docteur', 'etc.': 'et cetera',
    'p.ex.': 'par exemple', 'env.': 'environ', 'av.': 'avenue', 'bd.': 'boulevard', 'n°': 'numéro',
  },
  currencies: {
    '€': { major: { one: 'euro', other: 'euros' }, minor: { one: 'centime', other: 'centimes' } },
    EUR: { major: { one: 'euro', other: 'euros' }, minor: { one: 'centime', other: 'centimes' } },
    $: { major: { one: 'dollar', other: 'dollars' }, minor: { one: 'cent', other: 'cents' } },
    '£': { major: { one: 'livre', other: 'livres' }, minor: { one: 'penny', other: 'pence' } },
  },
  decimalSeparator: ',',
  currencyJoiner: 'et',
  units: {
    km: { one: 'kilomètre', other: 'kilomètres' }, m: { one: 'mètre', other: 'mètres' }, cm: { one: 'centimètre', other: 'centimètres' },
    mm: { one: 'millimètre', other: 'millimètres' }, kg: { one: 'kilo', other: 'kilos' }, g: { one: 'gramme', other: 'grammes' },
    l: { one: 'litre', other: 'litres' }, ml: { one: 'millilitre', other: 'millilitres' }, 'km/h': { one: 'kilomètre heure', other: 'kilomètres heure' },
    h: { one: 'heure', other: 'heures' }, min: { one: 'minute', other: 'minutes' }, s: { one: 'seconde', other: 'secondes' },
    '°C': { one: 'degré Celsius', other: 'degrés Celsius' },
  },
  percent: { other: 'pour cent' },
  months: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  dateOrder: 'dmy',
  formatDate: (day, month, year) => `${day === 1 ? '1er' : day} ${month} ${year}`,
}
