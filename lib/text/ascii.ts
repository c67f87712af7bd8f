/**
 * flite reads ASCII only: every other UTF-8 byte becomes a junk word (NATIVE.md C§3). This folds
 * Latin letters to their unaccented forms and typographic punctuation to ASCII, and drops the rest.
 */

/** Letters that do not decompose into an ASCII base plus combining marks. */
const LETTER_FOLDS: Record<string, string> = {
  ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  þ: 'th', Þ: 'Th', ł: 'l', Ł: 'L', ı: 'i', ħ: 'h', Ħ: 'H', ŋ: 'ng', Ŋ: 'Ng',
}

const PUNCTUATION_FOLDS: Record<string, string> = {
  '‘': "'", '’': "'", '‚': "'", '‛': "'", '“': '"', '”': '"', '„': '"', '«': '"', '»': '"',
  '–': '-', '—': '-', '‐': '-', '‑': '-', '−': '-', '…': '...', '\u00a0': ' ', '¿': '', '¡': '',
}

const NON_ASCII = /[^\x20-\x7e]/g
const COMBINING_MARKS = /\p{M}/gu
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

export function toAscii(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text.trim()  // most words: nothing to fold
  let folded = ''
  for (const char of text) folded += LETTER_FOLDS[char] ?? PUNCTUATION_FOLDS[char] ?? char
  return folded.normalize('NFD').replace(COMBINING_MARKS, '').replace(NON_ASCII, '').trim()
}
