import type { LanguageRules } from '../rules.js'

export const pt: LanguageRules = {
  locale: 'pt',
  abbreviations: {
    'Sr.': 'senhor', 'Sra.': 'senhora', 'Dr.': 'doutor', 'Dra.': 'doutora', 'Prof.': 'professor', 'etc.': 'etcétera',
    'p.ex.': 'por exemplo', 'pág.': 'página', 'n.º': 'número', 'Av.': 'avenida',
  },
  currencies: {
    '€': { major: { one: 'euro', other: 'euros' }, minor: { one: 'cêntimo', other: 'cêntimos' } },
    EUR: { major: { one: 'euro', other: 'euros' }, minor: { one: 'cêntimo', other: 'cêntimos' } },
    R$: { major: { one: 'real', other: 'reais' }, minor: { one: 'centavo', other: 'centavos' } },
    $: { major: { one: 'dólar', other: 'dólares' }, minor: { one: 'cêntimo', other: 'cêntimos' } },
  },
  decimalSeparator: ',',
  currencyJoiner: 'e',
  units: {
    km: { one: 'quilómetro', other: 'quilómetros' }, m: { one: 'metro', other: 'metros' }, cm: { one: 'centímetro', other: 'centímetros' },
    mm: { one: 'milímetro', other: 'milímetros' }, kg: { one: 'quilo', other: 'quilos' }, g: { one: 'grama', other: 'gramas' },
    l: { one: 'litro', other: 'litros' }, ml: { one: 'mililitro', other: 'mililitros' }, 'km/h': { one: 'quilómetro por hora', other: 'quilómetros por hora' },
    h: { one: 'hora', other: 'horas' }, min: { one: 'minuto', other: 'minutos' }, s: { one: 'segundo', other: 'segundos' },
    '°C': { one: 'grau Celsius', other: 'graus Celsius' },
  },
  percent: { other: 'por cento' },
  months: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'],
  dateOrder: 'dmy',
  formatDate: (day, month, year) => `${day} de ${month} de ${year}`,
}
