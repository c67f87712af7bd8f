/**
 * Binds a `ws` WebSocket (from `ws` directly or from @fastify/websocket) to a realtime session:
 * text frames in, events out as JSON text frames, and backpressure from the socket's send
 * buffer: while more than the service's bound is queued, the context about to send waits, so
 * its speech session stops pulling audio and its native synthesis pauses.
 */
import type { WebSocket } from 'ws'
import { TtsError } from '../errors.js'
import type { Principal } from './keys.js'
import type { TtsService } from './service.js'

const DRAIN_POLL_MS = 5

export function serveRealtime(service: TtsService, principal: Principal, socket: WebSocket): void {
  const bound = service.sendBufferBytes
  const open = () => socket.readyState === socket.OPEN
  const waitForRoom = () =>
    new Promise<void>((resolve) => {
      const check = () => (!open() || socket.bufferedAmount <= bound ? resolve() : setTimeout(check, DRAIN_POLL_MS))
      check()
    })
  const session = service.openRealtime(principal, () => (open() && socket.bufferedAmount > bound ? waitForRoom() : undefined))
  session.on('message', (message) => {
    if (open()) socket.send(JSON.stringify(message))
  })
  session.on('close', () => {
    if (open()) socket.close(1000, 'closed')
  })
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      session.emit('message', new TtsError('INVALID_MESSAGE', 'messages are JSON text frames').toJSON())
      return
    }
    session.receive(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'))
  })
  socket.on('close', () => session.destroy())
  socket.on('error', () => session.destroy())
}
