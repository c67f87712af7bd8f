import type { LanguageRules } from '../rules.js'

export const it: LanguageRules = {
  locale: 'it',
  abbreviations: {
    'Sig.': 'signor', 'Sig.ra': 'signora', 'Dott.': 'dottor', 'Dr.': 'dottor', 'Prof.': 'professor', 'ecc.': 'eccetera',
    'es.': 'esempio', 'pag.': 'pagina', 'n.': 'numero', 'ca.': 'circa',
  },
  currencies: {
    '€': { major: { one: 'euro', other: 'euro' }, minor: { one: 'centesimo', other: 'centesimi' } },
    EUR: { major: { one: 'euro', other: 'euro' }, minor: { one: 'centesimo', other: 'centesimi' } },
    $: { major: { one: 'dollaro', other: 'dollari' }, minor: { one: 'centesimo', other: 'centesimi' } },
    '£': { major: { one: 'sterlina', other: 'sterline' }, minor: { one: 'penny', other: 'pence' } },
  },
  decimalSeparator: ',',
  currencyJoiner: 'e',
  units: {
    km: { one: 'chilometro', other: 'chilometri' }, m: { one: 'metro', other: 'metri' }, cm: { one: 'centimetro', other: 'centimetri' },
    mm: { one: 'millimetro', other: 'millimetri' }, kg: { one: 'chilo', other: 'chili' }, g: { one: 'grammo', other: 'grammi' },
    l: { one: 'litro', other: 'litri' }, ml: { one: 'millilitro', other: 'millilitri' }, 'km/h': { one: 'chilometro orario', other: 'chilometri orari' },
    h: { one: 'ora', other: 'ore' }, min: { one: 'minuto', other: 'minuti' }, s: { one: 'secondo', other: 'secondi' },
    '°C': { one: 'grado centigrado', other: 'gradi centigradi' },
  },
  percent: { other: 'per cento' },
  months: ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'],
  dateOrder: 'dmy',
  formatDate: (day, month, year) => `${day === 1 ? 'primo' : day} ${month} ${year}`,
}
