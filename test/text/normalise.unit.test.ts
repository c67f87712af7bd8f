import { describe, expect, it } from 'vitest'
import { normaliserFor } from '../../lib/text/normalise/index.js'
import type { Language } from '../../lib/text/types.js'

/** Each row: a whitespace-separated input and what the backend is asked to read. */
const CASES: Record<Language, Array<[string, string]>> = {
  en: [
    ['$3.50', '3 dollars and 50 cents'],
    ['$1', '1 dollar'],
    ['$0.01', '1 cent'],
    ['£2.05', '2 pounds and 5 pence'],
    ['€1,250.00', '1250 euros'],
    ['12%', '12 percent'],
    ['5km', '5 kilometres'],
    ['1 km', '1 kilometre'],
    ['12/05/2023', 'December 5th 2023'],
    ['2024-01-22.', 'January 22nd 2024.'],
    ['Dr. Smith', 'Doctor Smith'],
    ['met Dr. Smith', 'met Doctor Smith'],
    ['St. Louis', 'Saint Louis'],
    ['5 Main St. now', '5 Main Street now'],
    ['Elm Dr. today', 'Elm Drive today'],
    ['e.g. this', 'for example this'],
    ['call 555-1234', 'call 5 5 5, 1 2 3 4'],
    ['+1-415-555-0100', '1, 4 1 5, 5 5 5, 0 1 0 0'],
    ['(3.5%)', '(3.5 percent)'],
    ['21st 3.5 1,000', '21st 3.5 1,000'],
    ['13/45/2023', '13/45/2023'],
  ],
  es: [
    ['3,50 €', '3 euros con 50 céntimos'],
    ['1 €', '1 euro'],
    ['$2', '2 dólares'],
    ['12%', '12 por ciento'],
    ['5 km', '5 kilómetros'],
    ['05/12/2023', '5 de diciembre de 2023'],
    ['Sr. García', 'señor García'],
    ['1.234,5', '1.234,5'],
  ],
  fr: [
    ['3,50 €', '3 euros et 50 centimes'],
    ['12 %', '12 pour cent'],
    ['1/03/2024', '1er mars 2024'],
    ['5kg', '5 kilos'],
    ['M. Dupont', 'monsieur Dupont'],
  ],
  de: [
    ['3,50 €', '3 Euro und 50 Cent'],
    ['12,5%', '12,5 Prozent'],
    ['05.12.2023', 'fünften Dezember 2023'],
    ['1 h', '1 Stunde'],
    ['2 h', '2 Stunden'],
    ['z.B. das', 'zum Beispiel das'],
    ['1.000.000 €', '1000000 Euro'],
  ],
  it: [
    ['3,50 €', '3 euro e 50 centesimi'],
    ['1/5/2023', 'primo maggio 2023'],
    ['12%', '12 per cento'],
    ['3 km', '3 chilometri'],
    ['Sig. Rossi', 'signor Rossi'],
  ],
  pt: [
    ['R$ 3,50', '3 reais e 50 centavos'],
    ['R$3,50', '3 reais e 50 centavos'],
    ['1 €', '1 euro'],
    ['25/04/1974', '25 de abril de 1974'],
    ['12%', '12 por cento'],
    ['Dr. Silva', 'doutor Silva'],
  ],
  ru: [
    ['21 ₽', '21 рубль'],
    ['22 ₽', '22 рубля'],
    ['25 ₽', '25 рублей'],
    ['3,50 ₽', '3 рубля 50 копеек'],
    ['1%', '1 процент'],
    ['12,5%', '12,5 процента'],
    ['5 км', '5 километров'],
    ['05.12.2023', '5 декабря 2023 года'],
    ['т.е. так', 'то есть так'],
  ],
  // The rest are read by espeak-ng's own rules: the text passes through.
  ar: [['12%', '12%']],
  ro: [['3,50', '3,50']],
  ja: [],
  he: [['12', '12']],
  hy: [['12', '12']],
  tr: [['12%', '12%']],
  hi: [['12', '12']],
  zh: [],
}

function normalise(language: Language, text: string): string {
  const normaliser = normaliserFor(language)
  const tokens = text.split(' ')
  return tokens
    .map((token, index) => normaliser.normaliseToken(token, { previous: tokens[index - 1], next: tokens[index + 1] }))
    .filter((spoken) => spoken !== '')
    .join(' ')
}

describe('normalisation', () => {
  for (const [language, cases] of Object.entries(CASES) as Array<[Language, Array<[string, string]>]>) {
    if (cases.length === 0) continue
    it.each(cases)(`${language}: %s → %s`, (input, spoken) => {
      expect(normalise(language, input)).toBe(spoken)
    })
  }

  it('recognises abbreviations so their period does not end a sentence', () => {
    expect(normaliserFor('en').isAbbreviation('Dr.')).toBe(true)
    expect(normaliserFor('en').isAbbreviation('dog.')).toBe(false)
    expect(normaliserFor('de').isAbbreviation('z.B.')).toBe(true)
    expect(normaliserFor('tr').isAbbreviation('Dr.')).toBe(false)
  })
})
