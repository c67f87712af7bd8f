/**
 * Seeded random HTTP requests for the service fuzz: malformed targets and methods, headers missing,
 * doubled or wrong, bodies of every shape (valid requests among them, mutated ones, wrong types,
 * deep nesting, huge numbers, bytes, multipart). Request `index` of seed `seed` is always the same.
 */
import { PREDEFINED_VOICES } from '../../../lib/voices/predefined.js'
import { random } from '../../helpers/random.js'

type Next = () => number
const pick = <T>(next: Next, items: readonly T[]): T => items[Math.floor(next() * items.length)]!

const VOICE = PREDEFINED_VOICES[0]!.record.voice_id
const METHODS = ['GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'BREW', 'G ET']
const PATHS = [
  '/', '/text_to_speech', '/text_to_speech/streaming', '/text_to_speech/with_timestamps', '/voices', '/voices/clone', '/voices/batch',
  `/voices/${VOICE}`, `/voices/${VOICE}/preview`, '/voices/%', '/voices/%E0%A4%A', '/voices/%00', `/voices/${'x'.repeat(5000)}`, '//[', 'http://[',
  '/../../etc/passwd', '/text_to_speech/websocket/ws', '*', '/voices/é', '/%2e%2e/', '/text_to_speech?api_key=sk_x&api%5Fkey=sk_y', '/voices/a/b/c/d',
]
const VERSIONS = ['v1', 'v1', 'v9', '', 'v1, v1', 'V1', '\u00e9']
const CONTENT_TYPES = ['application/json', 'application/json', 'multipart/form-data; boundary=b', 'multipart/form-data', 'text/plain', 'application/json; charset=latin1', 'x/y;;;']
const STRINGS = ['', 'Hello there.', 'a'.repeat(3000), '<break time="1s"/>', '<phonemes>ˈtʃiːz</phonemes>', '\u0000\ud800', '😀'.repeat(50), '<<<>>>', '$3.50 on 12/05/2023']
const VALUES: (() => unknown)[] = [
  () => null, () => true, () => 0, () => -1, () => 1e308, () => Number.MAX_SAFE_INTEGER + 2, () => 0.5, () => 'x', () => [], () => ({}),
  () => [1, 'a', null], () => ({ mode: 'id' }), () => ({ __proto__: { polluted: true } }), () => ({ constructor: { prototype: {} } }),
]

function synthesisRequest(next: Next): Record<string, unknown> {
  return {
    model_id: pick(next, ['svc_flash_v1.5', 'svc_flash_v1.0', 'svc_pro_v1.0', 'nope']),
    transcript: pick(next, STRINGS),
    voice: { mode: 'id', id: pick(next, [VOICE, VOICE, 'missing']) },
    ...(next() < 0.5 && { output_format: { container: pick(next, ['raw', 'wav', 'mp3', 'ogg', 'flac', 'aac']), sample_rate: pick(next, [8000, 16000, 22050, 11025]) } }),
    ...(next() < 0.2 && { speed: pick(next, [0.5, 1, 2, 3, -1]) }),
    ...(next() < 0.2 && { language: pick(next, ['en', 'fr', 'xx', 'ja']) }),
  }
}

/** A value with one field replaced, removed or added at random, any depth. */
function mutate(next: Next, value: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(value)
  const roll = next()
  const key = pick(next, keys)
  if (roll < 0.3) return { ...value, [key]: pick(next, VALUES)() }
  if (roll < 0.5) {
    const copy = { ...value }
    delete copy[key]
    return copy
  }
  if (roll < 0.7) return { ...value, [pick(next, ['outputFormat', 'extra', 'transcrpt', '__proto__', 'voice_id'])]: pick(next, VALUES)() }
  return value
}

function body(next: Next, path: string): Buffer | undefined {
  const roll = next()
  if (roll < 0.1) return undefined
  if (roll < 0.45) return Buffer.from(JSON.stringify(mutate(next, synthesisRequest(next))))
  if (roll < 0.55) return Buffer.from(JSON.stringify(synthesisRequest(next)))
  if (roll < 0.6) return Buffer.from('['.repeat(20000))
  if (roll < 0.65) return Buffer.from(`{"voice_ids":[${Array.from({ length: 200 }, () => `"${VOICE}"`).join(',')}]}`)
  if (roll < 0.7) return Buffer.from('{"limit": 1e999, "cursor": {"$gt": ""}}')
  if (roll < 0.8 && path.includes('clone')) {
    const parts = Array.from({ length: Math.floor(next() * 12) }, (_, i) => `--b\r\nContent-Disposition: form-data; name="${pick(next, ['clip', 'name', 'language', 'x'])}"${next() < 0.3 ? `; filename="f${i}"` : ''}\r\n\r\n${pick(next, STRINGS)}\r\n`)
    return Buffer.from(`${parts.join('')}${next() < 0.8 ? '--b--\r\n' : ''}`)
  }
  return Buffer.from(Array.from({ length: Math.floor(next() * 2000) }, () => Math.floor(next() * 256)))
}

/** The request's bytes as sent on a fresh connection (which the request asks to close). */
export function fuzzRequest(seed: number, index: number, key: string): Buffer {
  const next = random(seed * 1_000_003 + index)
  const method = pick(next, METHODS)
  const path = pick(next, PATHS)
  const content = method === 'GET' && next() < 0.8 ? undefined : body(next, path)
  const headers = [`Host: ${next() < 0.95 ? 'localhost' : ''}`, 'Connection: close']
  if (next() < 0.8) headers.push(`version: ${pick(next, VERSIONS)}`)
  if (next() < 0.1) headers.push('version: v1')  // twice
  const keyRoll = next()
  if (keyRoll < 0.6) headers.push(`x-api-key: ${key}`)
  else if (keyRoll < 0.75) headers.push(`x-api-key: ${pick(next, ['sk_', 'sk_wrong', '', key.toUpperCase(), `${key},${key}`])}`)
  if (content) {
    headers.push(`Content-Type: ${pick(next, CONTENT_TYPES)}`)
    // Declared as sent, or shorter (the rest is a second, malformed request on the same connection), never longer: that would only wait.
    headers.push(`Content-Length: ${next() < 0.9 ? content.length : Math.floor(content.length / 2)}`)
  }
  if (next() < 0.05) headers.push(`X-Long: ${'h'.repeat(20000)}`)
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`), content ?? Buffer.alloc(0)])
}
