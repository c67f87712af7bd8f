/**
 * Seeded random inputs for the Cartesia dialect's fuzz: generation requests (valid ones among
 * them) with fields replaced, removed or added, wrong types, huge and deeply nested values, bytes
 * that are not JSON; voice list queries. Input `index` of seed `seed` is always the same.
 */
import { PREDEFINED_VOICES } from '../../../lib/voices/predefined.js'
import { random } from '../../helpers/random.js'

type Next = () => number
const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!

export const VOICE = PREDEFINED_VOICES[0]!.record.voice_id
const STRINGS = ['', ' ', 'Hello there.', 'a'.repeat(3000), '<break time="1s"/>', '<break time="x"/>', '<shout>hi</shout>', '\u0000\ud800', '😀'.repeat(50), '$3.50 on 12/05/2023']
const VALUES: (() => unknown)[] = [
  () => null, () => true, () => 0, () => -1, () => 1e308, () => Number.MAX_SAFE_INTEGER + 2, () => 0.5, () => 'x', () => [], () => ({}),
  () => [1, 'a', null], () => ({ mode: 'id' }), () => ({ __proto__: { polluted: true } }), () => ({ constructor: { prototype: {} } }),
  () => 'y'.repeat(100_000), () => JSON.parse('['.repeat(500) + ']'.repeat(500)) as unknown,
]
const FORMATS = [
  { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
  { container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 },
  { container: 'wav', encoding: 'pcm_f32le', sample_rate: 22050 },
  { container: 'mp3', sample_rate: 24000, bit_rate: 64000 },
  { container: 'mp3', sample_rate: 8000, bit_rate: 192000 },
  { container: 'ogg', sample_rate: 24000 },
  { container: 'raw', encoding: 'pcm_s24le', sample_rate: 11025 },
]

function generationRequest(next: Next): Record<string, unknown> {
  return {
    model_id: pick(next, ['sonic-3', 'sonic-english', 'sonic-turbo-2025-03-07', 'svc_flash_v1.5', 'sonic-9', 'nope']),
    transcript: pick(next, STRINGS),
    voice: pick(next, [{ mode: 'id', id: VOICE }, VOICE, { id: VOICE }, { mode: 'embedding', embedding: [0.1] }, { mode: 'id', id: 'missing' }, { mode: 'clone' }]),
    output_format: pick(next, FORMATS),
    ...(next() < 0.3 && { language: pick(next, ['en', 'fr', 'xx', 'ja', null]) }),
    ...(next() < 0.1 && { locale: pick(next, ['en-GB', 'fr', 'zz-ZZ']) }),
    ...(next() < 0.2 && { generation_config: pick(next, [{ speed: 1.2 }, { speed: 9 }, { volume: 2 }, { emotion: 'sad' }, { speed: 'fast' }]) }),
    ...(next() < 0.1 && { speed: pick(next, ['slow', 'fastest', 0.5, 'warp']) }),
    ...(next() < 0.3 && { add_timestamps: next() < 0.8 }),
    ...(next() < 0.5 && { context_id: pick(next, ['a', 'b', 'c', '', 'x'.repeat(200)]) }),
    ...(next() < 0.5 && { continue: next() < 0.5 }),
    ...(next() < 0.1 && { flush: true }),
    ...(next() < 0.1 && { max_buffer_delay_ms: pick(next, [0, 3000, 9000]) }),
  }
}

/** A value with one field replaced, removed or added at random. */
function mutate(next: Next, value: Record<string, unknown>): Record<string, unknown> {
  const key = pick(next, Object.keys(value))
  const roll = next()
  if (roll < 0.35) return { ...value, [key]: pick(next, VALUES)() }
  if (roll < 0.6) {
    const copy = { ...value }
    delete copy[key]
    return copy
  }
  if (roll < 0.75) return { ...value, [pick(next, ['outputFormat', 'extra', 'transcrpt', '__proto__', 'voice_id', 'cancel'])]: pick(next, VALUES)() }
  return value
}

/** A frame's or a body's text: a request as sent, mutated, or something that is not one. */
export function fuzzText(seed: number, index: number): { text: string; what: string } {
  const next = random(seed * 1_000_003 + index)
  const roll = next()
  if (roll < 0.3) return { text: JSON.stringify(generationRequest(next)), what: 'request' }
  if (roll < 0.75) return { text: JSON.stringify(mutate(next, generationRequest(next))), what: 'mutated request' }
  if (roll < 0.8) return { text: JSON.stringify({ context_id: pick(next, ['a', 'b', 'nope']), cancel: pick(next, [true, false, 'yes']) }), what: 'cancel' }
  if (roll < 0.85) return { text: '['.repeat(20000), what: 'deep' }
  if (roll < 0.9) return { text: JSON.stringify(pick(next, VALUES)()) ?? 'undefined', what: 'wrong type' }
  return { text: Array.from({ length: Math.floor(next() * 300) }, () => String.fromCharCode(Math.floor(next() * 256))).join(''), what: 'bytes' }
}

/** A voice list query string. */
export function fuzzQuery(seed: number, index: number): string {
  const next = random(seed * 7919 + index)
  const fields = [
    ['limit', pick(next, ['1', '100', '0', '101', '-1', 'x', '1e999', ''])],
    ['starting_after', pick(next, [VOICE, 'missing', '', '%00', 'x'.repeat(300)])],
    ['ending_before', VOICE],
    ['gender', pick(next, ['masculine', 'feminine', 'gender_neutral', 'other'])],
    ['is_owner', pick(next, ['true', 'false', 'maybe'])],
    ['q', 'sarah'],
    ['expand[]', 'preview_file_url'],
  ] as const
  return new URLSearchParams(fields.filter(() => next() < 0.3).map(([k, v]) => [k, v])).toString()
}
