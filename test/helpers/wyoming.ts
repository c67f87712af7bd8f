/**
 * A Wyoming client for tests, written from the protocol's documentation and independent of the
 * server's framing code: it writes events as Home Assistant's client (the `wyoming` package) does
 * and reads them back as that package's `async_read_event` does (a line, then exact byte counts).
 */
import { connect, type Socket } from 'node:net'

export interface ClientEvent {
  type: string
  data: Record<string, unknown>
  payload?: Buffer
}

/** One event as the reference writes it: header line, then the data section, then the payload. */
export function frame(type: string, data?: Record<string, unknown>, payload?: Buffer): Buffer {
  const dataBytes = data && Object.keys(data).length > 0 ? Buffer.from(JSON.stringify(data)) : undefined
  const header: Record<string, unknown> = { type, version: '1.8.0' }
  if (dataBytes) header.data_length = dataBytes.length
  if (payload && payload.length > 0) header.payload_length = payload.length
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...(dataBytes ? [dataBytes] : []), ...(payload ? [payload] : [])])
}

/** The first whole event of `bytes` and its length on the wire, or undefined while it is incomplete. */
function readEvent(bytes: Buffer): { event: ClientEvent; length: number } | undefined {
  const newline = bytes.indexOf(0x0a)
  if (newline < 0) return undefined
  const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Record<string, unknown>
  const dataLength = (header.data_length as number | undefined) ?? 0
  const payloadLength = (header.payload_length as number | undefined) ?? 0
  if (bytes.length < newline + 1 + dataLength + payloadLength) return undefined
  let offset = newline + 1
  const data = { ...(header.data as Record<string, unknown> | undefined), ...(dataLength > 0 ? JSON.parse(bytes.subarray(offset, offset + dataLength).toString('utf8')) : {}) }
  offset += dataLength
  const payload = payloadLength > 0 ? Buffer.from(bytes.subarray(offset, offset + payloadLength)) : undefined
  offset += payloadLength
  return { event: { type: header.type as string, data, ...(payload && { payload }) }, length: offset }
}

/** Every event of a whole recording of a connection's output. */
export function parseEvents(bytes: Buffer): ClientEvent[] {
  const events: ClientEvent[] = []
  for (let read = readEvent(bytes); read; read = readEvent(bytes)) {
    events.push(read.event)
    bytes = bytes.subarray(read.length)
  }
  if (bytes.length > 0) throw new Error(`${bytes.length} bytes after the last whole event`)
  return events
}

export class WyomingClient {
  readonly events: ClientEvent[] = []
  private buffered = Buffer.alloc(0)
  private waiters: (() => void)[] = []
  closed = false

  private constructor(readonly socket: Socket) {
    socket.on('data', (bytes: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, bytes])
      this.parse()
    })
    socket.on('close', () => {
      this.closed = true
      this.wake()
    })
    socket.on('error', () => {})
  }

  static connect(target: number | string): Promise<WyomingClient> {
    return new Promise((resolve, reject) => {
      const socket = typeof target === 'number' ? connect(target, '127.0.0.1') : connect(target)
      socket.once('error', reject)
      socket.once('connect', () => {
        socket.off('error', reject)
        resolve(new WyomingClient(socket))
      })
    })
  }

  send(type: string, data?: Record<string, unknown>, payload?: Buffer): void {
    this.socket.write(frame(type, data, payload))
  }

  /** Waits (up to `ms`) until an event passes `test`; returns the events so far. */
  async until(test: (event: ClientEvent) => boolean, ms = 20_000): Promise<ClientEvent[]> {
    const deadline = Date.now() + ms
    while (!this.events.some(test)) {
      if (this.closed) throw new Error(`connection closed before the awaited event; got ${this.events.map((e) => e.type).join(', ')}`)
      if (Date.now() > deadline) throw new Error(`timed out; got ${this.events.map((e) => e.type).join(', ')}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return this.events
  }

  /** Waits until the server closes the connection. */
  async closing(ms = 5000): Promise<void> {
    const deadline = Date.now() + ms
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error('the server did not close the connection')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  close(): void {
    this.socket.destroy()
  }

  private parse(): void {
    for (let read = readEvent(this.buffered); read; read = readEvent(this.buffered)) {
      this.buffered = this.buffered.subarray(read.length)
      this.events.push(read.event)
      this.wake()
    }
  }

  private wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}

/** The audio of each audio-start … audio-stop in `events`, in order, with its format. */
export function audioSegments(events: ClientEvent[]): { rate: number; width: number; channels: number; pcm: Buffer; chunks: number }[] {
  const segments: { rate: number; width: number; channels: number; pcm: Buffer; chunks: number }[] = []
  let open: { rate: number; width: number; channels: number; parts: Buffer[] } | undefined
  for (const event of events) {
    if (event.type === 'audio-start') {
      if (open) throw new Error('audio-start inside an audio')
      open = { rate: event.data.rate as number, width: event.data.width as number, channels: event.data.channels as number, parts: [] }
    } else if (event.type === 'audio-chunk') {
      if (!open) throw new Error('audio-chunk outside an audio')
      if (event.data.rate !== open.rate || event.data.width !== open.width || event.data.channels !== open.channels) throw new Error('audio-chunk format differs from its audio-start')
      open.parts.push(event.payload ?? Buffer.alloc(0))
    } else if (event.type === 'audio-stop') {
      if (!open) throw new Error('audio-stop outside an audio')
      segments.push({ rate: open.rate, width: open.width, channels: open.channels, pcm: Buffer.concat(open.parts), chunks: open.parts.length })
      open = undefined
    }
  }
  if (open) throw new Error('audio without its audio-stop')
  return segments
}
