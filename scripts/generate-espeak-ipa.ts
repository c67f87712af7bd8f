/**
 * Regenerates lib/text/ipa/espeak-inventory.ts from the installed espeak-ng data:
 *   npx tsx scripts/generate-espeak-ipa.ts
 * For each language it lists the phoneme mnemonics of the language's phoneme table (and the
 * tables it inherits) from `phontab`, asks espeak-ng how it writes each one in IPA
 * (`espeak-ng -v VOICE -q --ipa "[[mnemonic]]"`), and keeps the mnemonics whose IPA is a clean
 * phone. Phones that espeak-ng only writes in context (allophones such as Portuguese ɾ or English
 * ɐ) are added by aligning its `-x --sep=_` and `--ipa --sep=_` output for sample text.
 * The result maps IPA → mnemonic per language, so it records espeak-ng's own behaviour.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const DATA = process.env.ESPEAK_DATA ?? '/usr/lib/x86_64-linux-gnu/espeak-ng-data'
const OUTPUT = fileURLToPath(new URL('../../../lib/text/ipa/espeak-inventory.ts', import.meta.url))

/** Our language → [espeak voice, phoneme table]. zh is read with the pinyin voice. */
const VOICES: Record<string, [string, string]> = {
  en: ['en', 'en'], es: ['es', 'es'], fr: ['fr', 'fr'], de: ['de', 'de'], it: ['it', 'it'], pt: ['pt', 'pt-pt'],
  ar: ['ar', 'ar'], ru: ['ru', 'ru'], ro: ['ro', 'ro'], ja: ['ja', 'ja'], he: ['he', 'he'], hy: ['hy', 'hy'],
  tr: ['tr', 'tr'], hi: ['hi', 'hi'], zh: ['cmn-latn-pinyin', 'cmn'],
}

interface Phoneme { mnemonic: string; vowel: boolean }
interface Table { name: string; parent: number; phonemes: Phoneme[] }

/** PHONEME_TAB.type values (phoneme.h) that are not phones: pause, stress, virtual, deleted. */
const NOT_PHONE_TYPES = new Set([0, 1, 9, 14, 15])
const VOWEL_TYPE = 2

/** phontab: u8 table count, 3 pad; per table u8 count, u8 parent (1-based), 2 pad, char[32] name, 16-byte entries. */
function readPhontab(): Table[] {
  const data = readFileSync(`${DATA}/phontab`)
  const tables: Table[] = []
  let position = 4
  for (let t = 0; t < data[0]!; t++) {
    const count = data[position]!
    const parent = data[position + 1]!
    const name = data.subarray(position + 4, position + 36).toString('latin1').replace(/\0.*$/s, '')
    position += 36
    const phonemes: Phoneme[] = []
    for (let k = 0; k < count; k++, position += 16) {
      const type = data[position + 11]!
      if (NOT_PHONE_TYPES.has(type)) continue
      const mnemonic = data.subarray(position, position + 4).toString('latin1').replace(/\0.*$/s, '')
      phonemes.push({ mnemonic, vowel: type === VOWEL_TYPE })
    }
    tables.push({ name, parent, phonemes })
  }
  return tables
}

function inventory(tables: Table[], name: string): Phoneme[] {
  const chain: Table[] = []
  for (let table = tables.find((t) => t.name === name); table; table = table.parent > 0 ? tables[table.parent - 1] : undefined) {
    chain.push(table)
    if (table.parent - 1 === tables.indexOf(table)) break
  }
  const byMnemonic = new Map<string, Phoneme>()
  for (const phoneme of chain.flatMap((t) => t.phonemes)) if (!byMnemonic.has(phoneme.mnemonic)) byMnemonic.set(phoneme.mnemonic, phoneme)
  return [...byMnemonic.values()]
}

/** Pauses, word/syllable markers, tones and modifiers are not phones a user writes in IPA. */
const NOT_A_PHONE = /^(?:$|[_#|*?;:\-]|\d+$)|[\s\[\]]/

/** Mnemonics that are variants for espeak's own rules (r/, l/2, t#) lose to plain ones for the same IPA. */
function preference(mnemonic: string): number {
  return (/[/#"%!~2-9]/.test(mnemonic) ? 10 : 0) + mnemonic.length
}

function ipaOf(voice: string, mnemonics: string): string {
  const out = execFileSync('espeak-ng', ['-v', voice, '-q', '--ipa', `[[${mnemonics}]]`], { encoding: 'utf8' })
  // Stress is placed by the converter, and tone digits (cmn) are not part of a phone.
  return out.trim().replace(/[ˈˌ0-9]/g, '')
}

/**
 * How espeak writes a phoneme inside a word: a vowel between consonants, a consonant between
 * stressed vowels, because some phonemes are written differently alone (en r is "r" alone but "ɹ"
 * in a word). Several frames are tried because a neighbour can colour the frame itself (Russian
 * a after a soft consonant). Returns '' when no frame comes back intact.
 */
const VOWEL_FRAMES = [["t'", 't'], ["p'", 'p'], ["k'", 'k']] as const
const CONSONANT_FRAMES = [["'a", "'a"], ["'o", "'o"], ["'u", "'u"], ["'e", "'e"]] as const

function ipaInContext(voice: string, phoneme: Phoneme): string {
  for (const [left, right] of phoneme.vowel ? VOWEL_FRAMES : CONSONANT_FRAMES) {
    const frame = ipaOf(voice, `${left}${right}`)
    const ipa = ipaOf(voice, `${left}${phoneme.mnemonic}${right}`)
    let prefix = 0
    while (prefix < frame.length && frame[prefix] === ipa[prefix]) prefix++
    let suffix = 0
    while (suffix < frame.length - prefix && frame[frame.length - 1 - suffix] === ipa[ipa.length - 1 - suffix]) suffix++
    if (prefix > 0 && suffix > 0 && prefix + suffix === frame.length && ipa.length > frame.length) {
      return ipa.slice(prefix, ipa.length - suffix)
    }
  }
  return ''
}

/** Sample text per language, for the phones espeak-ng writes only in context. */
const SAMPLES: Record<string, string> = {
  en: 'Today the weather is nice, so we are going to the park. About a thousand beautiful judges measure strength and pleasure. Hello water thinking church yellow.',
  es: 'Hoy hace buen tiempo, así que vamos al parque. El perro de la ciudad quiere hablar con la gente; llamar al niño cabeza.',
  fr: "Aujourd'hui il fait beau, alors nous allons au parc. Bonjour garçon, l'enfant ouvre la fenêtre lundi; une œuvre brune et du champagne.",
  de: 'Heute ist schönes Wetter, also gehen wir in den Park. Ich lese Bücher über Bach, Pfeffer und zwei Straßen.',
  it: 'Oggi fa bel tempo, quindi andiamo al parco. Il ragazzo mangia gnocchi e pizza; la scena della chiesa con il figlio a casa.',
  pt: 'Hoje está um dia bonito, por isso vamos ao parque. Coração, filho, manhã, cidade, trabalho, obrigado, muito.',
  ar: 'سَلَام كِتَاب شَمْس قَمَر عَرَبِي مَدْرَسَة الجو جميل اليوم',
  ru: 'Сегодня хорошая погода, поэтому мы идём в парк. Привет, мягкий щука жизнь день рыба.',
  ro: 'Astăzi vremea este frumoasă, așa că mergem în parc. Țară, școală, câine.',
  ja: 'キョーワ テンキガ イイノデ コーエンニ イキマス。コンニチワ ガッコー シンブン ツクエ',
  he: 'שָׁלוֹם מַיִם סֵפֶר יֶלֶד',
  hy: 'Այսօր եղանակը լավ է, ուստի մենք գնում ենք այգի։ Բարեւ',
  tr: 'Bugün hava güzel, bu yüzden parka gidiyoruz. Çiçek ağaç.',
  hi: 'आज मौसम अच्छा है, इसलिए हम पार्क जा रहे हैं। नमस्ते पानी किताब',
  zh: 'jin1 tian1 tian1 qi4 hen3 hao3, wo3 men0 qu4 gong1 yuan2. ni3 hao3 zhong1 guo2 xue2 sheng1 yin2 hang2',
}

/** espeak's separated output of one text, as words of phone tokens with stress marks removed. */
function separatedWords(voice: string, text: string, mode: '-x' | '--ipa'): string[][] {
  const out = execFileSync('espeak-ng', ['-v', voice, '-q', mode, '--sep=_', text], { encoding: 'utf8' })
  // Stress marks go; digits are tones in IPA and in the pinyin voice's mnemonics, but phonemes elsewhere (de 3 = ɜ).
  const unwanted = mode === '--ipa' || voice === 'cmn-latn-pinyin' ? /[ˈˌ',0-9]/g : /[ˈˌ',]/g
  return out.split(/\s+/).filter(Boolean).map((word) => word.split('_').map((phone) => phone.replace(unwanted, '')))
}

/** IPA → mnemonic pairs from aligning the two outputs, one sample word at a time; words that do not align are skipped. */
function phonesInContext(voice: string, text: string): Array<[string, string]> {
  return text.split(/[\s,.;。、]+/).filter(Boolean).flatMap((word) => alignedPhones(voice, word))
}

function alignedPhones(voice: string, text: string): Array<[string, string]> {
  const mnemonicWords = separatedWords(voice, text, '-x').map((word) =>
    // ';' (palatalised) is printed as its own token but belongs to the phone before it.
    word.reduce<string[]>((phones, phone) => (phone === ';' && phones.length > 0 ? [...phones.slice(0, -1), phones[phones.length - 1] + ';'] : [...phones, phone]), []),
  )
  const ipaWords = separatedWords(voice, text, '--ipa')
  const pairs: Array<[string, string]> = []
  if (mnemonicWords.length !== ipaWords.length) return pairs
  mnemonicWords.forEach((mnemonics, index) => {
    const ipa = ipaWords[index]!
    if (mnemonics.length !== ipa.length) return
    mnemonics.forEach((mnemonic, k) => {
      if (mnemonic !== '' && ipa[k] !== '' && !/[|]/.test(mnemonic)) pairs.push([ipa[k]!, mnemonic])
    })
  })
  return pairs
}

const tables = readPhontab()
const result: Record<string, Record<string, string>> = {}
for (const [language, [voice, table]] of Object.entries(VOICES)) {
  const byIpa = new Map<string, string>()
  for (const phoneme of inventory(tables, table)) {
    const mnemonic = phoneme.mnemonic
    if (NOT_A_PHONE.test(mnemonic)) continue
    const ipa = ipaInContext(voice, phoneme)
    // Drop what did not come back as one clean phone (empty, several words, espeak's ASCII fallbacks).
    if (ipa === '' || /[\s!-/:-@\[-`{-~]/.test(ipa)) continue
    const current = byIpa.get(ipa)
    if (current === undefined || preference(mnemonic) < preference(current)) byIpa.set(ipa, mnemonic)
  }
  for (const [ipa, mnemonic] of phonesInContext(voice, SAMPLES[language] ?? '')) {
    if (!byIpa.has(ipa) && !/[\s!-/:-@\[-`{-~]/.test(ipa)) byIpa.set(ipa, mnemonic)
  }
  result[language] = Object.fromEntries([...byIpa].sort(([a], [b]) => a.localeCompare(b)))
}

const header = `/**
 * IPA → espeak-ng phoneme mnemonic (the Kirshenbaum-style ASCII read inside [[ ]]), per language,
 * as espeak-ng ${execFileSync('espeak-ng', ['--version'], { encoding: 'utf8' }).split(' ')[3] ?? ''} writes each phoneme of the language's table.
 * Generated by scripts/generate-espeak-ipa.ts; do not edit by hand.
 */
`
writeFileSync(OUTPUT, `${header}export const ESPEAK_INVENTORY: Record<string, Record<string, string>> = ${JSON.stringify(result, null, 2)}\n`)
console.log(Object.entries(result).map(([l, m]) => `${l}: ${Object.keys(m).length}`).join(', '))
