/**
 * A WebSocket client on a bare TCP socket that does only what a test tells it, as a hostile client
 * would: it sends the frames it is given and never answers a close, so a test sees whether the
 * server cuts it off.
 */
import { connect, type Socket } from 'node:net'

export interface Frame {
  opcode: number
  payload: Buffer
}

export interface RawWebSocket {
  socket: Socket
  /** Frames the server sent, in order. */
  frames: Frame[]
  /** Sends one frame (text by default), masked as a client must. */
  send(payload: string | Buffer, opcode?: number): void
  /** Resolves when the server has closed or cut the TCP connection. */
  gone: Promise<void>
  /** The code and reason of the server's close frame, once it came. */
  closeFrame(): { code: number; reason: string } | undefined
}

function frame(payload: Buffer, opcode: number): Buffer {
  const length = payload.length
  const head = Buffer.alloc(length < 126 ? 2 : length < 65536 ? 4 : 10)
  head[0] = 0x80 | opcode
  head[1] = 0x80 | (length < 126 ? length : length < 65536 ? 126 : 127)
  if (head.length === 4) head.writeUInt16BE(length, 2)
  if (head.length === 10) head.writeBigUInt64BE(BigInt(length), 2)
  // A zero mask key leaves the payload as it is.
  return Buffer.concat([head, Buffer.alloc(4), payload])
}

/** Parses the server's (unmasked) frames off the front of `buffer`; returns what is left. */
function parseFrames(buffer: Buffer, frames: Frame[]): Buffer {
  for (;;) {
    if (buffer.length < 2) return buffer
    let length = buffer[1]! & 127
    let offset = 2
    if (length === 126) {
      if (buffer.length < 4) return buffer
      length = buffer.readUInt16BE(2)
      offset = 4
    } else if (length === 127) {
      if (buffer.length < 10) return buffer
      length = Number(buffer.readBigUInt64BE(2))
      offset = 10
    }
    if (buffer.length < offset + length) return buffer
    frames.push({ opcode: buffer[0]! & 15, payload: buffer.subarray(offset, offset + length) })
    buffer = buffer.subarray(offset + length)
  }
}

/** Opens a WebSocket at `target` (path and query) on loopback `port`; rejects unless the server answers 101. */
export function rawWebSocket(port: number, target: string): Promise<RawWebSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('error', () => {})  // a cut connection shows as `gone`
    const frames: Frame[] = []
    let pending: Buffer = Buffer.alloc(0)
    let upgraded = false
    const gone = new Promise<void>((done) => socket.once('close', () => done()))
    socket.on('data', (part: Buffer) => {
      pending = Buffer.concat([pending, part])
      if (!upgraded) {
        const end = pending.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = pending.subarray(0, end).toString('latin1')
        pending = pending.subarray(end + 4)
        if (!head.startsWith('HTTP/1.1 101')) {
          socket.destroy()
          reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`))
          return
        }
        upgraded = true
        resolve({
          socket,
          frames,
          gone,
          send: (payload, opcode = 1) => {
            if (!socket.destroyed) socket.write(frame(Buffer.isBuffer(payload) ? payload : Buffer.from(payload), opcode))
          },
          closeFrame: () => {
            const close = frames.find((f) => f.opcode === 8)
            return close && { code: close.payload.readUInt16BE(0), reason: close.payload.subarray(2).toString('utf8') }
          },
        })
      }
      pending = parseFrames(pending, frames)
    })
    socket.once('close', () => reject(new Error('closed before the upgrade')))
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`)
  })
}
