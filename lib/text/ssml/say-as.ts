/**
 * `<say-as interpret-as>`: what the element's text is spoken as. The result is text that the
 * request's reader then reads like any other (so a date in ISO form gets the language's date
 * rule), or digits to read one by one; null when the text cannot be read that way.
 */
import type { Language } from '../types.js'

export const INTERPRETATIONS = ['characters', 'spell-out', 'cardinal', 'ordinal', 'digits', 'date', 'time', 'telephone'] as const
export type Interpretation = (typeof INTERPRETATIONS)[number]

export type SayAs = { kind: 'text'; text: string } | { kind: 'alias'; say: string } | { kind: 'digits'; digits: string }

/** The date orders SSML's `format` names; `d`, `m`, `y` alone are single fields. */
const DATE_FORMATS = ['mdy', 'dmy', 'ymd', 'md', 'dm', 'ym', 'my', 'd', 'm', 'y'] as const

/** Ordinal suffixes that espeak-ng reads as ordinals, per language; others read the number as written. */
function ordinal(n: string, language: Language): string {
  switch (language) {
    case 'en': {
      const tens = Number(n.slice(-2))
      const ones = Number(n.slice(-1))
      const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][ones] ?? 'th')
      return n + suffix
    }
    case 'de':
      return `${n}.`
    case 'fr':
      return n === '1' ? '1er' : `${n}e`
    case 'es':
    case 'it':
    case 'pt':
      return `${n}º`
    default:
      return n
  }
}

function spelled(text: string): string {
  return Array.from(text.replace(/\s+/g, '')).map((c) => c.toUpperCase()).join(' ')
}

function twoDigits(n: number): string {
  return String(n).padStart(2, '0')
}

/** A date in the order `format` names, as the ISO form (whole dates) or the month's name (partial ones). */
function date(text: string, format: string, language: Language): string | null {
  const order = (format || 'ymd').toLowerCase()
  if (!(DATE_FORMATS as readonly string[]).includes(order)) return null
  const parts = text.trim().split(/[-/.\s]+/)
  if (parts.length !== order.length || parts.some((p) => !/^\d{1,4}$/.test(p))) return null
  const field = (letter: string): number | undefined => {
    const index = order.indexOf(letter)
    return index < 0 ? undefined : Number(parts[index])
  }
  const [d, m, y] = [field('d'), field('m'), field('y')]
  if ((d !== undefined && (d < 1 || d > 31)) || (m !== undefined && (m < 1 || m > 12))) return null
  if (d !== undefined && m !== undefined && y !== undefined) return `${String(y).padStart(4, '0')}-${twoDigits(m)}-${twoDigits(d)}`
  if (m === undefined) return [d, y].filter((n) => n !== undefined).join(' ')
  const month = new Intl.DateTimeFormat(language, { month: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2000, m - 1, 1)))
  if (d !== undefined) return language === 'en' ? `${month} ${ordinal(String(d), 'en')}` : `${d} ${month}`
  return y === undefined ? month : `${month} ${y}`
}

export function sayAs(interpretation: Interpretation, text: string, format: string, language: Language): SayAs | null {
  switch (interpretation) {
    case 'characters':
    case 'spell-out':
      return { kind: 'alias', say: spelled(text) }
    case 'cardinal': {
      const number = text.trim().replace(/[,\s]/g, '')
      return /^-?\d+(?:\.\d+)?$/.test(number) ? { kind: 'alias', say: number } : null
    }
    case 'ordinal': {
      const number = text.trim().replace(/[,\s]|(?:st|nd|rd|th|\.)$/gi, '')
      return /^\d+$/.test(number) ? { kind: 'alias', say: ordinal(number, language) } : null
    }
    case 'digits': {
      const digits = text.replace(/\s+/g, '')
      return /^\d+$/.test(digits) ? { kind: 'digits', digits } : null
    }
    case 'telephone': {
      const groups = text.match(/\d+/g)
      return groups ? { kind: 'alias', say: groups.map((group) => Array.from(group).join(' ')).join(', ') } : null
    }
    case 'date': {
      const said = date(text, format, language)
      return said === null ? null : { kind: 'alias', say: said }
    }
    case 'time':
      return /\d/.test(text) ? { kind: 'text', text } : null
  }
}
