/**
 * SSML 1.1's attribute values as the factors and durations the plan takes: `<prosody>`'s rate,
 * pitch and volume, `<break strength>`, `<emphasis level>`. Each returns null for a value it does
 * not read, so the parser can say where it was.
 */
import type { Rendering } from '../types.js'

const RATE_KEYWORDS: Record<string, number> = { 'x-slow': 0.5, slow: 0.64, medium: 1, fast: 1.55, 'x-fast': 2, default: 1 }
const PITCH_KEYWORDS: Record<string, number> = { 'x-low': -5, low: -2, medium: 0, high: 2, 'x-high': 5, default: 0 }  // semitones
const VOLUME_KEYWORDS: Record<string, number> = { silent: 0, 'x-soft': 0.25, soft: 0.5, medium: 1, loud: 1.5, 'x-loud': 2, default: 1 }
const BREAK_STRENGTH_MS: Record<string, number> = { none: 0, 'x-weak': 100, weak: 200, medium: 400, strong: 700, 'x-strong': 1000 }

/**
 * What `<emphasis level>` does, as prosody: slower, higher and louder for stress, the reverse
 * for `reduced`. espeak-ng and flite have no emphasis of their own that a whole span can take.
 */
const EMPHASIS: Record<string, Rendering> = {
  strong: { rate: 0.85, pitch: 2 ** (3 / 12), volume: 1.4 },
  moderate: { rate: 0.93, pitch: 2 ** (1.5 / 12), volume: 1.2 },
  none: {},
  reduced: { rate: 1.1, pitch: 2 ** (-1.5 / 12), volume: 0.8 },
}

/** A hertz value relative to no voice in particular: `pitch="+20Hz"` is read against this typical speaking pitch. */
const NOMINAL_PITCH_HZ = 150
/** Factors beyond these make no sense for speech (the engine clamps further to what the backends take). */
const MAX_FACTOR = 4

/** A sign, a number, and a unit: `+4st`, `-6dB`, `50%`, `0.5`. */
const SIGNED = /^([+-])?(\d{1,6}(?:\.\d{1,6})?|\.\d{1,6})(%|st|hz|db)?$/i

interface Amount {
  sign: '+' | '-' | undefined
  value: number
  unit: '' | '%' | 'st' | 'hz' | 'db'
}

function amount(value: string): Amount | null {
  const match = SIGNED.exec(value.trim())
  if (!match) return null
  const sign = match[1] as Amount['sign']
  return { sign, value: Number(match[2]), unit: (match[3] ?? '').toLowerCase() as Amount['unit'] }
}

function signed(a: Amount): number {
  return a.sign === '-' ? -a.value : a.value
}

function bounded(factor: number): number | null {
  return Number.isFinite(factor) && factor > 0 && factor <= MAX_FACTOR ? factor : null
}

/** `x-slow`…`x-fast`, `50%` (of the normal rate), `+10%`/`-10%` (relative), or a plain multiplier `0.5`. */
export function rateFactor(value: string): number | null {
  const keyword = RATE_KEYWORDS[value.trim().toLowerCase()]
  if (keyword !== undefined) return keyword
  const a = amount(value)
  if (!a || (a.unit !== '' && a.unit !== '%')) return null
  if (a.unit === '%') return bounded(a.sign ? 1 + signed(a) / 100 : a.value / 100)
  return a.sign ? null : bounded(a.value)
}

/** `x-low`…`x-high`, `+4st`, `-2st`, `+10%`, `+20Hz` (relative), or `180Hz` (against a nominal speaking pitch). */
export function pitchFactor(value: string): number | null {
  const keyword = PITCH_KEYWORDS[value.trim().toLowerCase()]
  if (keyword !== undefined) return 2 ** (keyword / 12)
  const a = amount(value)
  if (!a) return null
  switch (a.unit) {
    case 'st':
      return a.sign ? bounded(2 ** (signed(a) / 12)) : null
    case '%':
      return a.sign ? bounded(1 + signed(a) / 100) : null
    case 'hz':
      return bounded(a.sign ? (NOMINAL_PITCH_HZ + signed(a)) / NOMINAL_PITCH_HZ : a.value / NOMINAL_PITCH_HZ)
    default:
      return null
  }
}

/** `silent`…`x-loud`, `+6dB`/`-6dB`, `+10%`/`-10%` (relative), or `0`…`100` (100 is the voice's own level). */
export function volumeFactor(value: string): number | null {
  const keyword = VOLUME_KEYWORDS[value.trim().toLowerCase()]
  if (keyword !== undefined) return keyword
  const a = amount(value)
  if (!a) return null
  if (a.unit === 'db') return a.sign ? bounded(10 ** (signed(a) / 20)) : null
  if (a.unit === '%') return a.sign ? (a.sign === '-' && a.value >= 100 ? 0 : bounded(1 + signed(a) / 100)) : null
  if (a.unit !== '' || a.sign || a.value > 100) return null
  return a.value / 100
}

export function breakStrengthMs(value: string): number | null {
  return BREAK_STRENGTH_MS[value.trim().toLowerCase()] ?? null
}

export function emphasisRendering(level: string): Rendering | null {
  return EMPHASIS[level.trim().toLowerCase()] ?? null
}
