// The realtime frames with the audio copied in are the same JSON that JSON.stringify makes of the
// dialect's events, whatever the text around the audio holds.
import { describe, expect, it } from 'vitest'
import type { ServerMessage } from '../../lib/realtime/messages.js'
import { eventFrames } from '../../lib/server/event-frames.js'
import { SPEC_REALTIME } from '../../lib/server/realtime-endpoint.js'
import type { RealtimeTranslator } from '../../lib/server/realtime-endpoint.js'

const AUDIO = Buffer.from(Array.from({ length: 30_001 }, (_, i) => (i * 7919) % 256)).toString('base64')
const AWKWARD = 'ctx "quoted" \\ back\u00e9\u65e5\u{1F600}\n\u0000'

/** What a client reads: the frame's text, parsed. */
const parsed = (frame: string | Buffer) => JSON.parse(typeof frame === 'string' ? frame : frame.toString('utf8')) as unknown

describe('eventFrames', () => {
  it("is the SPEC's JSON, the audio copied in as bytes", () => {
    const message: ServerMessage = { context_id: AWKWARD, audio: AUDIO, final: false, alignment: { words: [AWKWARD], word_start_times_milliseconds: [0], word_end_times_milliseconds: [500] } }
    const frames = eventFrames(SPEC_REALTIME.translator({}, new URLSearchParams()), message)
    expect(frames).toHaveLength(1)
    expect(Buffer.isBuffer(frames[0])).toBe(true)
    expect(parsed(frames[0]!)).toEqual(message)
    expect(Buffer.compare(frames[0] as Buffer, Buffer.from(JSON.stringify(message)))).toBe(0)
  })

  it("follows a dialect's renaming, into each event that carries the audio", () => {
    const translator: RealtimeTranslator = {
      messages: () => [],
      events: (event) => ('audio' in event ? [{ data: event.audio, name: AWKWARD, n: 1 }, { done: true, id: AWKWARD }] : []),
    }
    const frames = eventFrames(translator, { context_id: 'c', audio: AUDIO, final: false })
    expect(frames.map(parsed)).toEqual([{ data: AUDIO, name: AWKWARD, n: 1 }, { done: true, id: AWKWARD }])
  })

  it('serialises short audio and events without audio as they are', () => {
    const translator = SPEC_REALTIME.translator({}, new URLSearchParams())
    const final: ServerMessage = { context_id: 'c', audio: '', final: true }
    expect(eventFrames(translator, final)).toEqual([JSON.stringify(final)])
    const short: ServerMessage = { context_id: 'c', audio: 'AAAA', final: false }
    expect(eventFrames(translator, short)).toEqual([JSON.stringify(short)])
  })
})
