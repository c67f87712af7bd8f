// Wyoming's framing against golden frames: the bytes OHF-Voice/wyoming's event_to_bytes writes
// (Python's json.dumps with ensure_ascii=False), and the reading of every layout a client may send,
// split at every byte boundary.
import { describe, expect, it } from 'vitest'
import { TtsError } from '../../lib/errors.js'
import { encodeEvent, FrameReader, type WyomingEvent } from '../../lib/server/wyoming/framing.js'

const bytes = (text: string) => Buffer.from(text, 'utf8')

/** Each event and the exact bytes the reference writes for it. */
const GOLDEN: [string, WyomingEvent, Buffer][] = [
  ['header only', { type: 'describe', data: {} }, bytes('{"type": "describe", "version": "1.8.0"}\n')],
  ['header only (stream end)', { type: 'synthesize-stopped', data: {} }, bytes('{"type": "synthesize-stopped", "version": "1.8.0"}\n')],
  ['header + data', { type: 'audio-stop', data: { timestamp: 1234 } }, bytes('{"type": "audio-stop", "version": "1.8.0", "data_length": 19}\n{"timestamp": 1234}')],
  [
    'audio-start',
    { type: 'audio-start', data: { rate: 22050, width: 2, channels: 1, timestamp: 0 } },
    bytes('{"type": "audio-start", "version": "1.8.0", "data_length": 58}\n{"rate": 22050, "width": 2, "channels": 1, "timestamp": 0}'),
  ],
  [
    'header + data + payload',
    { type: 'audio-chunk', data: { rate: 16000, width: 2, channels: 1, timestamp: 64 }, payload: Buffer.from([1, 0, 255, 127]) },
    Buffer.concat([
      bytes('{"type": "audio-chunk", "version": "1.8.0", "data_length": 59, "payload_length": 4}\n{"rate": 16000, "width": 2, "channels": 1, "timestamp": 64}'),
      Buffer.from([1, 0, 255, 127]),
    ]),
  ],
  [
    'non-ASCII data, counted in bytes',
    { type: 'error', data: { text: "voice 'Zoë' is not a voice", code: 'VOICE_NOT_FOUND' } },
    bytes('{"type": "error", "version": "1.8.0", "data_length": 66}\n{"text": "voice \'Zoë\' is not a voice", "code": "VOICE_NOT_FOUND"}'),
  ],
  [
    'nested data, null and booleans',
    { type: 'info', data: { tts: [{ name: 'x', voices: [{ name: 'Sarah', speakers: null, languages: ['en'] }], installed: true }] } },
    bytes('{"type": "info", "version": "1.8.0", "data_length": 113}\n{"tts": [{"name": "x", "voices": [{"name": "Sarah", "speakers": null, "languages": ["en"]}], "installed": true}]}'),
  ],
]

/** Reads `wire` fed in the given pieces. */
function read(wire: Buffer, cuts: number[], reader = new FrameReader()): WyomingEvent[] {
  const events: WyomingEvent[] = []
  let from = 0
  for (const cut of [...cuts, wire.length]) {
    events.push(...reader.push(wire.subarray(from, cut)))
    from = cut
  }
  return events
}

function thrown(run: () => unknown): TtsError {
  try {
    run()
  } catch (error) {
    if (error instanceof TtsError) return error
    throw error
  }
  throw new Error('nothing was thrown')
}

describe('Wyoming framing', () => {
  it.each(GOLDEN)('writes %s byte for byte as the reference does', (_what, event, wire) => {
    expect(encodeEvent(event).equals(wire)).toBe(true)
  })

  it.each(GOLDEN)('reads %s back, split at every byte boundary (one cut and two cuts)', (_what, event, wire) => {
    const expected = { type: event.type, data: event.data, ...(event.payload && { payload: event.payload }) }
    for (let cut = 0; cut <= wire.length; cut++) {
      expect(read(wire, [cut])).toEqual([expected])
      expect(read(wire, [cut, Math.min(wire.length, cut + 3)])).toEqual([expected])
    }
    const byteAtATime = Array.from({ length: wire.length }, (_, i) => i)
    expect(read(wire, byteAtATime)).toEqual([expected])
  })

  it('reads every golden event from one stream, cut anywhere, in order', () => {
    const wire = Buffer.concat(GOLDEN.map(([, , frame]) => frame))
    for (let cut = 0; cut <= wire.length; cut += 7) {
      expect(read(wire, [cut]).map((e) => e.type)).toEqual(GOLDEN.map(([, event]) => event.type))
    }
  })

  it("merges the data section over the header's data, as the reference's dict.update does", () => {
    const section = bytes('{"text": "Section text.", "text_format": "text"}')
    const wire = Buffer.concat([
      bytes(`{"type":"synthesize","data":{"text":"Header text.","voice":{"name":"Sarah"}},"data_length":${section.length},"version":"1.7.0"}\n`),
      section,
    ])
    for (let cut = 0; cut <= wire.length; cut++) {
      expect(read(wire, [cut])).toEqual([{ type: 'synthesize', data: { text: 'Section text.', voice: { name: 'Sarah' }, text_format: 'text' } }])
    }
  })

  it('takes data in the header alone, and a zero data_length or payload_length as none', () => {
    const wire = bytes('{"type":"synthesize","data":{"text":"Hi."},"data_length":0,"payload_length":0}\n{"type":"describe"}\n')
    expect(read(wire, [])).toEqual([{ type: 'synthesize', data: { text: 'Hi.' } }, { type: 'describe', data: {} }])
  })

  it('refuses a header line over its limit as soon as it passes it, before its newline comes', () => {
    const reader = new FrameReader({ maxHeaderBytes: 100, maxDataBytes: 1000, maxPayloadBytes: 1000 })
    expect(reader.push(bytes('{"type": "describe", "pad": "'))).toEqual([])
    const error = thrown(() => reader.push(bytes('x'.repeat(100))))
    expect(error.code).toBe('PAYLOAD_TOO_LARGE')
    expect(error.message).toContain('header line')
  })

  it('refuses a data section or payload over its limit from the header, before any of it is buffered', () => {
    const limits = { maxHeaderBytes: 1000, maxDataBytes: 100, maxPayloadBytes: 50 }
    const data = thrown(() => new FrameReader(limits).push(bytes('{"type": "synthesize", "data_length": 101}\n')))
    expect([data.code, data.message]).toEqual(['PAYLOAD_TOO_LARGE', "a Wyoming event's data section is over the limit of 100 bytes"])
    const payload = thrown(() => new FrameReader(limits).push(bytes('{"type": "audio-chunk", "payload_length": 51}\n')))
    expect(payload.message).toContain('payload is over the limit of 50 bytes')
    // At the limits, the event is read.
    const wire = Buffer.concat([bytes('{"type": "audio-chunk", "data_length": 2, "payload_length": 50}\n{}'), Buffer.alloc(50, 7)])
    expect(read(wire, [10], new FrameReader(limits))).toEqual([{ type: 'audio-chunk', data: {}, payload: Buffer.alloc(50, 7) }])
  })

  it.each([
    ['a header that is not JSON', 'not json\n', 'its header line is not JSON'],
    ['a header that is not an object', '[1, 2]\n', 'its header is not a JSON object'],
    ['a header without a type', '{"data": {}}\n', 'its header has no type'],
    ['a data_length that is not a count', '{"type": "synthesize", "data_length": -1}\n', 'data_length must be a whole number of bytes'],
    ['a payload_length that is a string', '{"type": "synthesize", "payload_length": "9"}\n', 'payload_length must be a whole number of bytes'],
    ['data that is not an object', '{"type": "synthesize", "data": [1]}\n', 'its data is not a JSON object'],
    ['a data section that is not JSON', '{"type": "synthesize", "data_length": 3}\nabc', 'its data section is not JSON'],
    ['a data section that is not an object', '{"type": "synthesize", "data_length": 2}\n[]', 'its data section is not a JSON object'],
  ])('refuses %s as INVALID_MESSAGE', (_what, wire, message) => {
    const error = thrown(() => new FrameReader().push(bytes(wire)))
    expect(error.code).toBe('INVALID_MESSAGE')
    expect(error.message).toBe(`malformed Wyoming event: ${message}`)
  })

  it('holds no more than one partial event between pushes', () => {
    const reader = new FrameReader()
    expect(reader.push(bytes('{"type": "describe"}\n{"type": "desc'))).toEqual([{ type: 'describe', data: {} }])
    expect(reader.midEvent).toBe(true)
    expect(reader.push(bytes('ribe"}\n'))).toEqual([{ type: 'describe', data: {} }])
    expect(reader.midEvent).toBe(false)
  })
})
