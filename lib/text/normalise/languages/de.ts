import type { LanguageRules } from '../rules.js'

/** Dative ordinals ("am fünften Mai"): espeak-ng reads "5. Mai" as "fünf" and a sentence end. */
const DAY_ORDINALS = [
  'ersten', 'zweiten', 'dritten', 'vierten', 'fünften', 'sechsten', 'siebten', 'achten', 'neunten', 'zehnten',
  'elften', 'zwölften', 'dreizehnten', 'vierzehnten', 'fünfzehnten', 'sechzehnten', 'siebzehnten', 'achtzehnten', 'neunzehnten', 'zwanzigsten',
  'einundzwanzigsten', 'zweiundzwanzigsten', 'dreiundzwanzigsten', 'vierundzwanzigsten', 'fünfundzwanzigsten', 'sechsundzwanzigsten',
  'siebenundzwanzigsten', 'achtundzwanzigsten', 'neunundzwanzigsten', 'dreißigsten', 'einunddreißigsten',
] as const

export const de: LanguageRules = {
  locale: 'de',
  abbreviations: {
    'Dr.': 'Doktor', 'Prof.': 'Professor', 'Hr.': 'Herr', 'Fr.': 'Frau', 'z.B.': 'zum Beispiel', 'bzw.': 'beziehungsweise',
    'usw.': 'und so weiter', 'ca.': 'circa', 'd.h.': 'das heißt', 'u.a.': 'unter anderem', 'Nr.': 'Nummer', 'Str.': 'Straße',
    'evtl.': 'eventuell', 'ggf.': 'gegebenenfalls', 'inkl.': 'inklusive', 'vgl.': 'vergleiche',
  },
  currencies: {
    '€': { major: { other: 'Euro' }, minor: { one: 'Cent', other: 'Cent' } },
    EUR: { major: { other: 'Euro' }, minor: { one: 'Cent', other: 'Cent' } },
    $: { major: { other: 'Dollar' }, minor: { one: 'Cent', other: 'Cent' } },
    '£': { major: { other: 'Pfund' }, minor: { one: 'Penny', other: 'Pence' } },
    CHF: { major: { other: 'Franken' }, minor: { one: 'Rappen', other: 'Rappen' } },
  },
  decimalSeparator: ',',
  currencyJoiner: 'und',
  units: {
    km: { other: 'Kilometer' }, m: { other: 'Meter' }, cm: { other: 'Zentimeter' }, mm: { other: 'Millimeter' },
    kg: { other: 'Kilogramm' }, g: { other: 'Gramm' }, l: { other: 'Liter' }, ml: { other: 'Milliliter' },
    'km/h': { other: 'Kilometer pro Stunde' }, h: { one: 'Stunde', other: 'Stunden' }, min: { one: 'Minute', other: 'Minuten' },
    s: { one: 'Sekunde', other: 'Sekunden' }, '°C': { other: 'Grad Celsius' },
  },
  percent: { other: 'Prozent' },
  months: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  dateOrder: 'dmy',
  formatDate: (day, month, year) => `${DAY_ORDINALS[day - 1] ?? day} ${month} ${year}`,
}
