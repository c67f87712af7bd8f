/**
 * IPA → flite's `us` phones (CMUdict phones plus ax, lower case, vowels with stress 0 or 1;
 * NATIVE.md C§7). flite speaks American English, so British and American spellings of a vowel
 * map to the same phone.
 */
import type { IpaWord } from '../parser.js'
import { IpaInventory, segmentIpa } from './segment.js'

/** Vowels: IPA → CMU vowel without its stress digit. Diphthongs and r-coloured vowels are one phone. */
const VOWELS: Record<string, string> = {
  i: 'iy', iː: 'iy', ɪ: 'ih', e: 'eh', ɛ: 'eh', eɪ: 'ey', ei: 'ey', æ: 'ae', a: 'ae', ɑ: 'aa', ɑː: 'aa', ɒ: 'aa',
  ɔ: 'ao', ɔː: 'ao', oʊ: 'ow', əʊ: 'ow', o: 'ow', oː: 'ow', ʊ: 'uh', u: 'uw', uː: 'uw', ʌ: 'ah', ə: 'ax', ɐ: 'ah',
  ɚ: 'er', ɝ: 'er', ɜ: 'er', ɜː: 'er', 'ɜːɹ': 'er', 'əɹ': 'er', aɪ: 'ay', aʊ: 'aw', ɔɪ: 'oy', ɨ: 'ih', ᵻ: 'ih',
}

/** Consonants (and syllabic consonants, which flite writes as schwa + consonant). */
const CONSONANTS: Record<string, string> = {
  p: 'p', b: 'b', t: 't', d: 'd', k: 'k', ɡ: 'g', g: 'g', f: 'f', v: 'v', θ: 'th', ð: 'dh', s: 's', z: 'z',
  ʃ: 'sh', ʒ: 'zh', h: 'hh', tʃ: 'ch', dʒ: 'jh', m: 'm', n: 'n', ŋ: 'ng', l: 'l', ɫ: 'l', ɹ: 'r', r: 'r',
  ɾ: 't', ʔ: 't', w: 'w', ʍ: 'w', j: 'y', 'l̩': 'ax l', 'n̩': 'ax n', 'm̩': 'ax m', x: 'hh',
}

const VOWEL_PHONES = new Set(Object.values(VOWELS))
const inventory = new IpaInventory({ ...VOWELS, ...CONSONANTS, ...Object.fromEntries(Object.keys(VOWELS).map((v) => [`${v}ː`, VOWELS[v]!])) })

/**
 * One IPA word as flite phones. A stress mark (ˈ or ˌ, flite has one level) stresses the next
 * vowel; when the word has no mark, its first vowel is stressed, as CMUdict does for one-syllable words.
 */
export function ipaToFlite(word: IpaWord): string {
  const tokens = segmentIpa(word, inventory, 'flite (English)')
  const hasStressMark = tokens.some((token) => token.kind === 'stress')
  const phones: string[] = []
  let stressNext = !hasStressMark
  for (const token of tokens) {
    if (token.kind === 'stress') {
      stressNext = true
      continue
    }
    for (const phone of token.output.split(' ')) {
      if (!VOWEL_PHONES.has(phone)) {
        phones.push(phone)
        continue
      }
      phones.push(`${phone}${stressNext ? 1 : 0}`)
      stressNext = false
    }
  }
  return phones.join(' ')
}
