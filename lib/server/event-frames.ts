/**
 * A realtime connection's event as the text frames its dialect sends. A chunk's audio, tens of KB
 * of base64, is copied into its frame as bytes instead of passing through JSON.stringify, which
 * scans every character for one to escape (base64 has none) and then has the whole string encoded
 * again: on a connection carrying many contexts that was the most of the main thread's JSON work.
 */
import { randomBytes } from 'node:crypto'
import type { ServerMessage } from '../realtime/messages.js'
import type { RealtimeTranslator } from './realtime-endpoint.js'

/** Stands in for the audio while the event is serialised: unguessable, so no client's text (a context id, a word) equals it. */
const SLOT = `audio-${randomBytes(16).toString('hex')}`
/** Shorter audio is serialised as it is: copying it is no cheaper than escaping it. */
const SPLICE_FROM_CHARS = 1024

/** The frames `translator` makes of `message`: strings, or for audio, the UTF-8 bytes of the same JSON. */
export function eventFrames(translator: RealtimeTranslator, message: ServerMessage): (string | Buffer)[] {
  const audio = 'audio' in message ? message.audio : ''
  if (audio.length < SPLICE_FROM_CHARS) return translator.events(message).map((event) => JSON.stringify(event))
  return translator.events({ ...message, audio: SLOT }).map((event) => withAudio(JSON.stringify(event), audio))
}

function withAudio(json: string, audio: string): string | Buffer {
  const at = json.indexOf(SLOT)
  if (at < 0) return json
  const head = json.slice(0, at)
  const tail = json.slice(at + SLOT.length)
  const headBytes = Buffer.byteLength(head)
  const frame = Buffer.allocUnsafe(headBytes + audio.length + Buffer.byteLength(tail))
  frame.write(head, 0, 'utf8')
  frame.write(audio, headBytes, 'latin1')  // base64 is ASCII: one byte a character
  frame.write(tail, headBytes + audio.length, 'utf8')
  return frame
}
