/**
 * Wyoming's framing: a JSON header line (`type`, `data`, `data_length`, `payload_length`,
 * `version`), then `data_length` bytes of JSON merged over the header's `data`, then
 * `payload_length` bytes of payload. Events are written as the reference implementation
 * (OHF-Voice/wyoming, event.py) writes them, byte for byte: Python's `json.dumps` separators, the
 * data in its own section, no `data` in the header.
 */
import { TtsError } from '../../errors.js'

/** The protocol version svc-tts speaks: 1.7 added streaming synthesis. */
export const WYOMING_VERSION = '1.8.0'

export interface WyomingEvent {
  type: string
  data: Record<string, unknown>
  payload?: Buffer
}

/** Bounds on what one event a client sends may hold; past one, the connection is closed. */
export interface FrameLimits {
  /** The header line, without its newline. */
  maxHeaderBytes: number
  maxDataBytes: number
  maxPayloadBytes: number
}

export const DEFAULT_FRAME_LIMITS: FrameLimits = Object.freeze({
  maxHeaderBytes: 64 * 1024,
  maxDataBytes: 1024 * 1024,
  maxPayloadBytes: 1024 * 1024,
})

const NEWLINE = 0x0a

/** JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it: `", "` and `": "` between items. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, field]) => field !== undefined)
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}: ${pythonJson(field)}`).join(', ')}}`
  }
  return JSON.stringify(value ?? null)
}

/** One event on the wire. An empty `data` and an empty payload are left out, as the reference does. */
export function encodeEvent(event: WyomingEvent): Buffer {
  const data = Object.keys(event.data).length > 0 ? Buffer.from(pythonJson(event.data)) : undefined
  const payload = event.payload && event.payload.length > 0 ? event.payload : undefined
  const header = {
    type: event.type,
    version: WYOMING_VERSION,
    ...(data && { data_length: data.length }),
    ...(payload && { payload_length: payload.length }),
  }
  return Buffer.concat([Buffer.from(`${pythonJson(header)}\n`), ...(data ? [data] : []), ...(payload ? [payload] : [])])
}

function frameError(message: string): TtsError {
  return new TtsError('INVALID_MESSAGE', `malformed Wyoming event: ${message}`)
}

function tooLarge(what: string, limit: number): TtsError {
  return new TtsError('PAYLOAD_TOO_LARGE', `a Wyoming event's ${what} is over the limit of ${limit} bytes`, { extra: { max_bytes: limit } })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw frameError(`its ${what} is not JSON`)
  }
}

function length(header: Record<string, unknown>, field: string, limit: number, what: string): number {
  const value = header[field] ?? 0
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw frameError(`${field} must be a whole number of bytes`)
  if (value > limit) throw tooLarge(what, limit)
  return value
}

interface Expecting {
  type: string
  data: Record<string, unknown>
  dataLength: number
  payloadLength: number
}

/**
 * Reads events from bytes split anywhere. It holds at most one event's bounded sections: a header
 * line, a data section or a payload over its limit is an error as soon as it is seen, before it is
 * buffered whole.
 */
export class FrameReader {
  private parts: Buffer[] = []
  private buffered = 0
  /** Bytes of `parts` already searched for the header's newline. */
  private searched = 0
  private expecting: Expecting | undefined

  constructor(private readonly limits: FrameLimits = DEFAULT_FRAME_LIMITS) {}

  /** Whether a partly received event is waiting for more bytes. */
  get midEvent(): boolean {
    return this.buffered > 0 || this.expecting !== undefined
  }

  /** The events that `bytes` completes; throws TtsError INVALID_MESSAGE or PAYLOAD_TOO_LARGE. */
  push(bytes: Buffer): WyomingEvent[] {
    if (bytes.length > 0) {
      this.parts.push(bytes)
      this.buffered += bytes.length
    }
    const events: WyomingEvent[] = []
    for (;;) {
      const event = this.expecting ? this.readSections(this.expecting) : this.readHeader()
      if (event === undefined) return events
      if (event !== 'header') events.push(event)
    }
  }

  private readHeader(): 'header' | undefined {
    const newline = this.findNewline()
    if (newline < 0) {
      if (this.buffered > this.limits.maxHeaderBytes) throw tooLarge('header line', this.limits.maxHeaderBytes)
      return undefined
    }
    if (newline > this.limits.maxHeaderBytes) throw tooLarge('header line', this.limits.maxHeaderBytes)
    const line = this.take(newline + 1).subarray(0, newline)
    const header = parseJson(line, 'header line')
    if (!isObject(header)) throw frameError('its header is not a JSON object')
    if (typeof header.type !== 'string' || header.type === '') throw frameError('its header has no type')
    if (header.data !== undefined && header.data !== null && !isObject(header.data)) throw frameError('its data is not a JSON object')
    this.expecting = {
      type: header.type,
      data: isObject(header.data) ? { ...header.data } : {},
      dataLength: length(header, 'data_length', this.limits.maxDataBytes, 'data section'),
      payloadLength: length(header, 'payload_length', this.limits.maxPayloadBytes, 'payload'),
    }
    return 'header'
  }

  private readSections(expecting: Expecting): WyomingEvent | undefined {
    if (this.buffered < expecting.dataLength + expecting.payloadLength) return undefined
    this.expecting = undefined
    const data = expecting.dataLength > 0 ? parseJson(this.take(expecting.dataLength), 'data section') : {}
    if (!isObject(data)) throw frameError('its data section is not a JSON object')
    const payload = expecting.payloadLength > 0 ? this.take(expecting.payloadLength) : undefined
    return { type: expecting.type, data: { ...expecting.data, ...data }, ...(payload && { payload }) }
  }

  /** The offset of the first newline in the buffered bytes, or -1; each byte is searched once. */
  private findNewline(): number {
    let offset = 0
    for (const part of this.parts) {
      if (offset + part.length > this.searched) {
        const found = part.indexOf(NEWLINE, Math.max(0, this.searched - offset))
        if (found >= 0) {
          this.searched = 0
          return offset + found
        }
      }
      offset += part.length
    }
    this.searched = offset
    return -1
  }

  /** The first `count` buffered bytes, removed from the buffer. */
  private take(count: number): Buffer {
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)
    const rest = joined.subarray(count)
    this.parts = rest.length > 0 ? [rest] : []
    this.buffered = rest.length
    return joined.subarray(0, count)
  }
}
