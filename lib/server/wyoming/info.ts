/** The `info` event that answers `describe`: one text-to-speech program, svc-tts, with every voice. */
import { readFileSync } from 'node:fs'
import type { WyomingEvent } from './framing.js'
import type { WyomingVoices } from './voices.js'

/** The package's version, from the package.json three folders up from this module (lib/server/wyoming/ or dist/server/wyoming/). */
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

const PROGRAM = {
  name: 'svc-tts',
  attribution: { name: 'svc-tts', url: 'https://www.npmjs.com/package/svc-tts' },
  installed: true,
  description: 'Embeddable text to speech: eSpeak NG, Flite, Piper and Kokoro voices, and voice clones',
  version: PACKAGE_VERSION,
} as const

export function infoEvent(voices: WyomingVoices): WyomingEvent {
  const tts = { ...PROGRAM, voices: voices.list(), supports_synthesize_streaming: true }
  return { type: 'info', data: { asr: [], tts: [tts], handle: [], intent: [], wake: [], mic: [], snd: [] } }
}
