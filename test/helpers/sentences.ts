import type { Language } from '../../lib/index.js'

// "Today the weather is nice, so we are going to the park" in each language's usual script, with
// the comma between its two clauses.
export const PARK_SENTENCES: Record<Language, string> = {
  en: 'Today the weather is nice, so we are going to the park.',
  es: 'Hoy hace buen tiempo, así que vamos al parque.',
  fr: "Aujourd'hui il fait beau, alors nous allons au parc.",
  de: 'Heute ist schönes Wetter, also gehen wir in den Park.',
  it: 'Oggi fa bel tempo, quindi andiamo al parco.',
  pt: 'Hoje está um dia bonito, por isso vamos ao parque.',
  ar: 'الجو جميل اليوم، لذلك سنذهب إلى الحديقة.',
  ru: 'Сегодня хорошая погода, поэтому мы идём в парк.',
  ro: 'Astăzi vremea este frumoasă, așa că mergem în parc.',
  ja: '今日は天気がいいので、公園に行きます。',
  he: 'היום מזג האוויר יפה, אז אנחנו הולכים לפארק.',
  hy: 'Այսօր եղանակը լավ է, ուստի մենք գնում ենք այգի։',
  tr: 'Bugün hava güzel, bu yüzden parka gidiyoruz.',
  hi: 'आज मौसम अच्छा है, इसलिए हम पार्क जा रहे हैं।',
  zh: '今天天气很好，我们去公园。',
}
