/** The `info` event that answers `describe`: one text-to-speech program, svc-tts, with every voice. */
import type { WyomingEvent } from './framing.js'
import { PACKAGE_VERSION } from '../../package-root.js'
import type { WyomingVoices } from './voices.js'

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
