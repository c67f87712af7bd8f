import type { LanguageRules } from '../rules.js'

export const es: LanguageRules = {
  locale: 'es',
  abbreviations: {
    'Sr.': 'señor', 'Sra.': 'señora', 'Srta.': 'señorita', 'Dr.': 'doctor', 'Dra.': 'doctora', 'Ud.': 'usted', 'Uds.': 'ustedes',
    'etc.': 'etcétera', 'p.ej.': 'por ejemplo', 'aprox.': 'aproximadamente', 'pág.': 'página', 'núm.': 'número', 'Av.': 'avenida',
  },
  currencies: {
    '€': { major: { one: 'euro', other: 'euros' }, minor: { one: 'céntimo', other: 'céntimos' } },
    EUR: { major: { one: 'euro', other: 'euros' }, minor: { one: 'céntimo', other: 'céntimos' } },
    $: { major: { one: 'dólar', other: 'dólares' }, minor: { one: 'centavo', other: 'centavos' } },
    USD: { major: { one: 'dólar', other: 'dólares' }, minor: { one: 'centavo', other: 'centavos' } },
    '£': { major: { one: 'libra', other: 'libras' }, minor: { one: 'penique', other: 'peniques' } },
  },
  decimalSeparator: ',',
  currencyJoiner: 'con',
  units: {
    km: { one: 'kilómetro', other: 'kilómetros' }, m: { one: 'metro', other: 'metros' }, cm: { one: 'centímetro', other: 'centímetros' },
    mm: { one: 'milímetro', other: 'milímetros' }, kg: { one: 'kilo', other: 'kilos' }, g: { one: 'gramo', other: 'gramos' },
    l: { one: 'litro', other: 'litros' }, ml: { one: 'mililitro', other: 'mililitros' }, 'km/h': { one: 'kilómetro por hora', other: 'kilómetros por hora' },
    h: { one: 'hora', other: 'horas' }, min: { one: 'minuto', other: 'minutos' }, s: { one: 'segundo', other: 'segundos' },
    '°C': { one: 'grado centígrado', other: 'grados centígrados' },
  },
  percent: { other: 'por ciento' },
  months: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
  dateOrder: 'dmy',
  formatDate: (day, month, year) => `${day} de ${month} de ${year}`,
}
