/**
 * Seeded random WebSocket frames for the realtime fuzz test: every message kind of the protocol
 * with random fields (valid, wrong types, unknown fields), in random orders, and frames that are
 * no message at all: not JSON, binary, invalid UTF-8, empty, deeply nested, huge. Frame `index` of
 * seed `seed` is always the same frame.
 */
import { PREDEFINED_VOICES } from '../../../lib/voices/predefined.js'
import { random } from '../../helpers/random.js'

export interface FuzzFrame {
  /** What kind of frame it is, to name it in a failure. */
  what: string
  data: string | Buffer
  /** A binary frame (else text, even when `data` is bytes that are not UTF-8). */
  binary?: boolean
}

type Next = () => number

const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!
const maybe = (next: Next, p: number) => next() < p

const VOICES = [...PREDEFINED_VOICES.slice(0, 6).map((v) => v.record.voice_id), 'nope', '', 'x'.repeat(300)]
const CONTEXT_IDS = [undefined, 'a', 'b', 'c', 'default', '', 'x'.repeat(129), 'ctx-ü', 5, null, ['a'], {}]
const TRANSCRIPTS = [
  'Hello there. ', 'Hi ', '', ' ', 'and then ', 'It is easy to tell the depth of a well. ', "<break time='300ms'/> ", '<break time=',
  '<phonemes>ˈhɛloʊ</phonemes> ', '<phonemes>/bad/</phonemes> ', '<digits>1 2 3</digits> ', '</digits>', '\u0000\u202e\ud800 ', '😀👨‍👩‍👧 ',
  'Привет мир. ', '你好。', '!!!!!!!!!!!!!!!! ', 'a'.repeat(300), '3.50 $ 12/05/2023 ',
]
const UNKNOWN = ['foo', 'transcript ', 'contextId', 'Voice', '__proto__', 'constructor', 'text', 'flush', 'output-format', '']
const WRONG = [0, -1, 1e309, 'x', '', true, false, null, [], {}, [1, 2], { mode: 'id' }]

function voice(next: Next): unknown {
  return maybe(next, 0.8) ? { mode: 'id', id: pick(next, VOICES) } : pick(next, [{ mode: 'name', id: 'Sarah' }, { id: 'x' }, 'Sarah', null, { mode: 'id', id: 5 }])
}

function outputFormat(next: Next): unknown {
  if (maybe(next, 0.2)) return pick(next, WRONG)
  return {
    container: pick(next, ['raw', 'mp3', 'ogg', 'flac', 'wav', 'aiff', 5]),
    ...(maybe(next, 0.6) && { encoding: pick(next, ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw', 'mp3', 'x']) }),
    ...(maybe(next, 0.6) && { sample_rate: pick(next, [8000, 16000, 22050, 24000, 44100, 48000, 0, 44100.5, '44100']) }),
  }
}

/** Request fields a message may carry, each valid or not. */
function speaking(next: Next): Record<string, unknown> {
  return {
    ...(maybe(next, 0.3) && { model_id: pick(next, ['svc_flash_v1.5', 'svc_pro_v1.0', 'nope', '', 5]) }),
    ...(maybe(next, 0.2) && { voice: voice(next) }),
    ...(maybe(next, 0.15) && { language: pick(next, ['en', 'es', 'fr', 'xx', 'EN', '', 3]) }),
    ...(maybe(next, 0.15) && { speed: pick(next, [0.5, 1, 2, 0, -1, 3, 'fast', null]) }),
  }
}

function contextId(next: Next): Record<string, unknown> {
  const id = pick(next, CONTEXT_IDS)
  return id === undefined ? {} : { context_id: id }
}

/** One protocol message as an object, valid or nearly. */
function message(next: Next): { what: string; value: Record<string, unknown> } {
  const kind = next()
  if (kind < 0.15) {
    return {
      what: 'initializeConnection',
      value: {
        model_id: pick(next, ['svc_flash_v1.5', 'svc_flash_v1.5', 'svc_pro_v1.0', 'nope', 5]),
        voice: voice(next),
        ...(maybe(next, 0.3) && { output_format: outputFormat(next) }),
        ...(maybe(next, 0.2) && { language: pick(next, ['en', 'xx', 7]) }),
        ...(maybe(next, 0.2) && { speed: pick(next, [0.7, 1.5, 9, 'x']) }),
        ...(maybe(next, 0.3) && { add_timestamps: pick(next, [true, false, 'yes']) }),
      },
    }
  }
  if (kind < 0.6) {
    return {
      what: 'text',
      value: {
        ...contextId(next),
        transcript: maybe(next, 0.95) ? pick(next, TRANSCRIPTS) : pick(next, WRONG),
        ...(maybe(next, 0.25) && { force: pick(next, [true, false, 'yes']) }),
        ...(maybe(next, 0.15) && speaking(next)),
      },
    }
  }
  if (kind < 0.75) {
    return { what: 'closeContext', value: { ...contextId(next), close_context: pick(next, [true, true, false, 'yes']), ...(maybe(next, 0.7) && { transcript: pick(next, ['', '', 'x', 5]) }) } }
  }
  if (kind < 0.88) return { what: 'cancel', value: { ...contextId(next), cancel: pick(next, [true, true, false, 1]) } }
  if (kind < 0.9) return { what: 'closeConnection', value: pick(next, [{ text: '' }, { terminate: true }, { terminate: false }, { text: 'x' }]) }
  return { what: 'fields', value: { ...contextId(next), ...speaking(next), ...(maybe(next, 0.5) && { flush: true }) } }
}

function nested(next: Next): string {
  const depth = 1000 + Math.floor(next() * 20_000)
  return maybe(next, 0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

/** Frame `index` of seed `seed`. */
export function wsFrame(seed: number, index: number): FuzzFrame {
  const next = random((seed * 0x9e3779b1) ^ (index + 1))
  const kind = next()
  if (kind < 0.72) {
    const { what, value } = message(next)
    if (maybe(next, 0.1)) for (let i = Math.floor(next() * 4); i >= 0; i--) value[pick(next, UNKNOWN)] = pick(next, WRONG)
    return { what, data: JSON.stringify(value) }
  }
  if (kind < 0.78) return { what: 'not an object', data: JSON.stringify(pick(next, [...WRONG, 'transcript', [{ transcript: 'x' }]])) }
  if (kind < 0.86) {
    const valid = JSON.stringify(message(next).value)
    return { what: 'not JSON', data: pick(next, ['{', '{"transcript":', 'undefined', "{'transcript': 'x'}", '{"a":1,}', valid.slice(0, Math.floor(next() * valid.length)), '\u0000', 'NaN']) }
  }
  if (kind < 0.91) return { what: 'binary', data: Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256))), binary: true }
  if (kind < 0.93) return { what: 'invalid UTF-8', data: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }
  if (kind < 0.97) return { what: 'empty', data: '' }
  if (kind < 0.99) return { what: 'deep JSON', data: maybe(next, 0.5) ? nested(next) : `{"transcript":"x","deep":${nested(next)}}` }
  // Huge: a long transcript (past a context's characters), a long value, or many unknown fields; under the frame limit (1 MiB) or past it.
  const size = pick(next, [20_000, 120_000, 1_100_000])
  const form = pick(next, ['transcript', 'value', 'fields'] as const)
  const value =
    form === 'transcript' ? { context_id: 'a', transcript: 'word '.repeat(size / 5) }
    : form === 'value' ? { [`k${size}`]: 'x'.repeat(size) }
    : { transcript: 'x', ...Object.fromEntries(Array.from({ length: size / 12 }, (_, i) => [`field_${i}`, 1])) }
  return { what: `huge ${form} (${size})`, data: JSON.stringify(value) }
}
