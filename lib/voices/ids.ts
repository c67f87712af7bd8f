import { createHash } from 'node:crypto'

// A fixed namespace for svc-tts voice ids (itself a random v4 UUID, chosen once).
const NAMESPACE = '6f1c7a52-3b0e-4c1f-9a8d-2e5b7d4c9a10'

/** A name-based (version 5) UUID: the same name gives the same id in every release. */
export function uuidFromName(name: string): string {
  const namespace = Buffer.from(NAMESPACE.replace(/-/g, ''), 'hex')
  const bytes = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x50
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
