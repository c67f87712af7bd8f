/**
 * How a streamed response reaches its socket (writeResponse): each write costs the event loop a
 * system call, so the last part goes out in one with the response's end, and a client that stops
 * reading still holds the stream back. The socket's own writes are counted.
 */
import { createServer, get, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { writeResponse } from '../../lib/server/node-http.js'
import { socketWrites, type Writes } from '../helpers/socket-writes.js'

let server: Server | undefined

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** A server answering every request with `stream()`'s parts through writeResponse; the writes of its last response. */
async function serve(stream: () => AsyncIterable<Buffer>): Promise<{ port: number; writes: () => Writes }> {
  let writes: Writes = []
  server = createServer((request, response) => {
    writes = socketWrites(response.socket!)
    void writeResponse(response, { status: 200, stream: stream() }, new AbortController().signal)
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as AddressInfo).port, writes: () => writes }
}

function request(port: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get({ host: '127.0.0.1', port, path: '/', agent: false }, resolve).on('error', reject))
}

async function body(response: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of response) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

describe('a streamed response on its socket', () => {
  it('sends its last part and its end in one write', async () => {
    const first = Buffer.alloc(3000, 1)
    const last = Buffer.alloc(40_000, 2)  // over the response's high-water mark
    const { port, writes } = await serve(async function* () {
      yield first
      await sleep(30)  // a later turn of the event loop, as synthesis is
      yield last
    })
    const response = await request(port)
    expect(Buffer.concat([first, last]).equals(await body(response))).toBe(true)
    const sent = writes()
    // The head with the first part, then the last part with the terminating chunk.
    expect(sent).toHaveLength(2)
    expect(Buffer.concat(sent[0]!).includes(first)).toBe(true)
    const end = Buffer.concat(sent[1]!)
    expect(end.includes(last)).toBe(true)
    expect(end.subarray(-5).toString()).toBe('0\r\n\r\n')
  })

  it('stops pulling the stream while the client does not read', async () => {
    const MB = 1 << 20
    let pulled = 0
    const { port } = await serve(async function* () {
      for (let i = 0; i < 64; i++) {
        pulled++
        yield Buffer.alloc(MB, i)
      }
    })
    const response = await request(port)
    response.pause()
    await sleep(300)
    // What the socket's buffers and the kernel's take, and one part ahead: far from all 64.
    expect(pulled).toBeLessThan(32)
    expect(pulled).toBeGreaterThan(0)
    expect((await body(response)).length).toBe(64 * MB)
    expect(pulled).toBe(64)
  })
})
