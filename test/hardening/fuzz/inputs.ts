/**
 * Seeded random requests for the fuzz test: markup (valid and broken), words of every script,
 * Unicode oddities, punctuation runs, long tokens and breaks, for every model, language, voice
 * and output format. Input `index` of seed `seed` is always the same request.
 */
import { DEFAULT_MODELS } from '../../../lib/engine/models.js'
import { PREDEFINED_VOICES } from '../../../lib/voices/predefined.js'
import { random } from '../../helpers/random.js'

type Next = () => number

const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!
const upTo = (next: Next, max: number): number => Math.floor(next() * (max + 1))

const WORDS = [
  'hello', 'world', 'The', 'birch', 'canoe', 'Straße', 'café', 'naïve', 'Dr.', 'St.', 'e.g.', 'etc.', 'iPhone', 'don\'t',
  'привет', 'мир', 'مرحبا', 'شكرا', 'שלום', 'नमस्ते', 'भारत', 'Բարեւ', 'merhaba', 'ğüşıöç', 'bună', 'știință', 'olá', 'ação',
  'hola', 'año', 'bonjour', 'garçon', 'ciao', 'perché', 'Grüße', '你好', '银行', '一不', '今日は', '天気', 'カタカナ', 'ひらがな', 'ー',
  '3.50', '$3.50', '€4,20', '£1', '¥100', '12/05/2023', '2023-05-12', '555-123-4567', '+1-800-555-0199', '1,234,567.89', '45%', '5km',
  '10 km/h', '3,5', '1.234,56', '0', '007', '1e999', '½', '²', '٣', '१२', 'XIV',
]
const MARKS = ['.', ',', '!', '?', '…', '—', '-', '–', ';', ':', '。', '，', '、', '！', '？', '"', "'", '“', '”', '«', '»', '(', ')', '[', ']', '「', '」', '&', '/', '\\', '*', '#', '@', '%', '$', '~', '^', '|', '<', '>', '=']
const ODDITIES = [
  '\u0301', '\u0308', '\u200d', '\u200b', '\u200e', '\u202e', '\u00a0', '\u3000', '\ufeff', '\u00ad', '\ud800', '\udfff', '\u0000', '\u0007',
  '\u001b', '\u007f', '\u0085', '\u2028', '😀', '👨‍👩‍👧‍👦', '🏳️‍🌈', '𝄞', '𝕳𝖊𝖑𝖑𝖔', 'ｆｕｌｌ', 'Ａ１', '\ufffd', '\ue000', 'ﷺ', 'ǅ', 'ﬁ',
]
const IPA = ['t', 'ə', 'ˈ', 'ˌ', 'ː', 'ɑ', 'ʃ', 'ʒ', 'θ', 'ð', 'ŋ', 'ɹ', 'l', 'm', 'n', 'k', 'ɡ', 'æ', 'ɪ', 'ʊ', 'eɪ', 'aɪ', 'oʊ', 'tʃ', 'dʒ', 'a', 'i', 'u', 'e', 'o', 'ɯ', 'ɾ', 'ʁ', 'y', 'ø', '˥', '˩', 'x', 'ʔ', 'H', '/', '1', 'ʕ', 'ɐ̃']
const BREAK_TIMES = ['0ms', '1ms', '80ms', '150ms', '0.5s', '1s', '1.2s', '5s', '10s', '1e3ms', 'fast', '', '-1s', '.5s', '999999999999ms']
const SPACES = [' ', ' ', ' ', '  ', '\n', '\t', '\r\n', '\n\n']

function ipaWord(next: Next, symbols: number): string {
  let word = ''
  for (let i = 0; i < symbols; i++) word += pick(next, IPA)
  return word
}

function fragment(next: Next): string {
  const roll = next()
  if (roll < 0.4) return pick(next, WORDS)
  if (roll < 0.55) return pick(next, MARKS)
  if (roll < 0.62) return pick(next, ODDITIES)
  if (roll < 0.7) return `<break time='${pick(next, BREAK_TIMES)}'/>`
  if (roll < 0.76) return `<phonemes>${Array.from({ length: 1 + upTo(next, 2) }, () => ipaWord(next, 1 + upTo(next, 8))).join(' ')}</phonemes>`
  if (roll < 0.8) return `<digits>${Array.from({ length: 1 + upTo(next, 6) }, () => String(upTo(next, 9999))).join(' ')}</digits>`
  if (roll < 0.84) return pick(next, ['<', '>', '</', '/>', '<break', '<phonemes>', '</phonemes>', '<digits>', '</digits>', '<b>', '<speak>', '<break time="1s">', '&lt;'])
  return pick(next, SPACES)
}

/** The hostile shapes: one long stretch of a single kind, inside ordinary text. */
function stretch(next: Next): string {
  switch (upTo(next, 7)) {
    case 0: return 'a'.repeat(1 + upTo(next, 4000))
    case 1: return pick(next, MARKS).repeat(1 + upTo(next, 20000))
    case 2: return `<break time='${pick(next, ['5s', '1s', '200ms'])}'/>`.repeat(1 + upTo(next, 300))
    case 3: return `<phonemes>${ipaWord(next, 1 + upTo(next, 300))}</phonemes>`
    case 4: return `<digits>${'9 '.repeat(1 + upTo(next, 400))}${'1'.repeat(upTo(next, 300))}</digits>`
    case 5: return Array.from({ length: 1 + upTo(next, 300) }, () => pick(next, WORDS)).join('')
    case 6: return pick(next, ODDITIES).repeat(1 + upTo(next, 3000))
    default: return ('a' + pick(next, MARKS)).repeat(1 + upTo(next, 3000))
  }
}

const SSML_OPEN = [
  '<s>', '<p>', '<prosody rate="x-slow">', '<prosody rate="200%" pitch="-3st">', '<prosody volume="+6dB" pitch="+20Hz">', '<emphasis level="strong">',
  '<lang xml:lang="de">', '<lang xml:lang="ja">', '<voice name="Richard">', '<voice name="nobody">', '<unknown>',
]
const SSML_EMPTY = [
  '<break time="300ms"/>', '<break strength="x-strong"/>', '<break time="fast"/>', '<mark name="m"/>', '<mark/>', '&amp;', '&lt;', '&bogus;', '&#x1F600;',
  '<![CDATA[a < b]]>', '<!-- note -->', '<sub alias="World Wide Web">WWW</sub>', '<say-as interpret-as="characters">abc</say-as>',
  '<say-as interpret-as="date" format="mdy">12/05/2023</say-as>', '<say-as interpret-as="telephone">+1-800-555-0199</say-as>',
  '<say-as interpret-as="ordinal">21</say-as>', '<phoneme alphabet="ipa" ph="təˈmɑːtəʊ">tomato</phoneme>', '<phoneme alphabet="x-sampa" ph="t@">x</phoneme>',
]

/** An SSML document (valid or broken): elements nested at random around the text fragments, or one of the hostile shapes. */
function ssmlDocument(next: Next): string {
  switch (upTo(next, 9)) {
    case 0: return `<speak>${'<prosody rate="90%">'.repeat(1 + upTo(next, 5000))}deep</speak>`
    case 1: return `<speak>${'<s>word</s><mark name="m"/>'.repeat(1 + upTo(next, 4000))}</speak>`
    case 2: return `<?xml version="1.0"?><!DOCTYPE speak [<!ENTITY a "${'x'.repeat(upTo(next, 100))}"><!ENTITY b "&a;&a;&a;&a;">]><speak>&b;</speak>`
    default: {
      let body = ''
      const open: string[] = []
      for (let n = upTo(next, 30); n > 0; n--) {
        const roll = next()
        if (roll < 0.2) {
          const tag = pick(next, SSML_OPEN)
          body += tag
          open.push(tag.slice(1).split(/[ >]/)[0]!)
        } else if (roll < 0.35 && open.length > 0) {
          body += `</${open.pop()}>`
        } else if (roll < 0.55) {
          body += pick(next, SSML_EMPTY)
        } else {
          body += fragment(next)
        }
      }
      if (next() < 0.8) while (open.length > 0) body += `</${open.pop()}>`
      return `<speak>${body}</speak>`
    }
  }
}

export interface FuzzInput {
  index: number
  request: { model_id: string; transcript: string; voice: { mode: 'id'; id: string }; language?: string; output_format?: Record<string, unknown>; speed?: number }
  /** How the request is made: streamed and dropped after a few chunks, synthesized whole, with timestamps, or aborted. */
  call: 'stream' | 'synthesize' | 'timestamps' | 'abort'
  abortAfterMs: number
}

export function fuzzInput(seed: number, index: number): FuzzInput {
  const next = random((seed * 0x9e3779b1) ^ (index + 1))
  let transcript = ''
  const fragments = upTo(next, 30)
  for (let i = 0; i < fragments; i++) transcript += fragment(next)
  if (next() < 0.15) transcript += stretch(next) + pick(next, [' hello.', '', ' 今日は', ' a'])
  if (transcript === '') transcript = pick(next, [' ', 'a', '.'])
  const model = pick(next, DEFAULT_MODELS)
  const language = pick(next, model.languages)
  const voices = PREDEFINED_VOICES.filter((v) => v.record.language === language && (model.backend !== 'flite' || v.rendering.flite))
  const voice = pick(next, voices.length > 0 ? voices : PREDEFINED_VOICES)
  const short = transcript.length < 400
  const request: FuzzInput['request'] = {
    model_id: model.id,
    transcript,
    voice: { mode: 'id', id: voice.record.voice_id },
    ...(next() < 0.7 && { language }),
    ...(next() < 0.5 && {
      output_format: {
        container: pick(next, ['raw', 'wav']),
        encoding: pick(next, ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw']),
        sample_rate: pick(next, [8000, 16000, 22050, 44100, 48000]),
      },
    }),
  }
  const call = short ? pick(next, ['stream', 'synthesize', 'timestamps', 'abort'] as const) : pick(next, ['stream', 'abort'] as const)
  const abortAfterMs = upTo(next, 50)
  // Drawn last, so the inputs of a seed are those they were before speed existed, some now faster or slower.
  if (next() < 0.3) request.speed = pick(next, [0.5, 0.8, 1.25, 2])
  if (next() < 0.2) {
    request.transcript = ssmlDocument(next)
    // A long document is streamed and dropped, as long text is: it is there to be planned, not heard to the end.
    if (request.transcript.length >= 400) return { index, request, call: pick(next, ['stream', 'abort'] as const), abortAfterMs }
  }
  return { index, request, call, abortAfterMs }
}
