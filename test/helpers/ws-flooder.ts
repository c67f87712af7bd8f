/**
 * A hostile WebSocket client, run as its own process so that its flood does not hold the test's
 * event loop: for `ms`, `parallel` loops each open a connection and send `frame` as fast as the
 * socket takes it; when the server closes one (or refuses the handshake) the loop opens another at
 * once. With `paused`, it never reads what the server sends.
 * Prints one JSON line: frames sent, connections opened, handshakes refused, connections it left
 * open when its time was up, and each close by the server as "code reason" with its count.
 *
 *   node --import tsx test/helpers/ws-flooder.ts '{"url":"ws://...","ms":3000,"frame":"{}"}'
 */
import type { Socket } from 'node:net'
import WebSocket from 'ws'
import { openOrRefused } from './ws-open.js'

interface Options {
  url: string
  ms: number
  frame: string
  paused?: boolean
  parallel?: number
}

const options = JSON.parse(process.argv[2]!) as Options
const stopAt = Date.now() + options.ms
const closes: Record<string, number> = {}
const pending: Promise<void>[] = []
let sent = 0
let connections = 0
let refused = 0
let leftOpen = 0
const tcp = (socket: WebSocket) => (socket as unknown as { _socket: Socket })._socket

async function loop(): Promise<void> {
  while (Date.now() < stopAt) {
    const { socket, opened } = await openOrRefused(options.url)
    if (!opened) {
      refused += 1
      socket.terminate()
      await new Promise((resolve) => setTimeout(resolve, 10))
      continue
    }
    connections += 1
    if (options.paused) tcp(socket).pause()
    const closed = new Promise<void>((resolve) => socket.once('close', (code, reason) => {
      closes[`${code} ${String(reason)}`] = (closes[`${code} ${String(reason)}`] ?? 0) + 1
      resolve()
    }))
    pending.push(closed)
    await new Promise<void>((resolve) => {
      const flood = () => {
        if (Date.now() > stopAt || socket.readyState !== WebSocket.OPEN || tcp(socket).destroyed) return resolve()
        for (let i = 0; i < 200; i++) socket.send(options.frame)
        sent += 200
        setImmediate(flood)
      }
      flood()
    })
    if (socket.readyState === WebSocket.OPEN && Date.now() > stopAt) {
      // Time is up with the connection still open: the flooder leaves, which is no close of the server's.
      socket.removeAllListeners('close')
      socket.terminate()
      pending.splice(pending.indexOf(closed), 1)
      leftOpen += 1
    }
  }
}

await Promise.all(Array.from({ length: options.parallel ?? 1 }, loop))
await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, 5000))])
process.stdout.write(`${JSON.stringify({ sent, connections, refused, leftOpen, closes })}\n`)
process.exit(0)
