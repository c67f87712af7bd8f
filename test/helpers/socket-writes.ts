/**
 * Records the writes net.Socket hands the system (_write and _writev, one system call each), each
 * as the buffers it carried: on one socket, or on every socket `accepts` picks (patching the
 * prototype) until `restore()`.
 */
import { Socket } from 'node:net'

export type Writes = Buffer[][]

interface RawWrites {
  _write(data: Buffer, encoding: string, done: () => void): void
  _writev(chunks: { chunk: Buffer | string }[], done: () => void): void
}

function record(target: RawWrites, accepts: (socket: Socket) => boolean): { writes: Writes; restore(): void } {
  const writes: Writes = []
  const { _write: write, _writev: writev } = target
  target._write = function (this: Socket & RawWrites, data, encoding, done) {
    if (accepts(this)) writes.push([Buffer.from(data)])
    write.call(this, data, encoding, done)
  }
  target._writev = function (this: Socket & RawWrites, chunks, done) {
    if (accepts(this)) writes.push(chunks.map(({ chunk }) => Buffer.from(chunk)))
    writev.call(this, chunks, done)
  }
  return {
    writes,
    restore: () => {
      target._write = write
      target._writev = writev
    },
  }
}

/** The writes of one socket. */
export function socketWrites(socket: Socket): Writes {
  return record(socket as unknown as RawWrites, () => true).writes
}

/** The writes of every socket `accepts` picks, until restore(). */
export function everySocketsWrites(accepts: (socket: Socket) => boolean): { writes: Writes; restore(): void } {
  return record(Socket.prototype as unknown as RawWrites, accepts)
}
