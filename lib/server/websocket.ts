/**
 * Binds a `ws` WebSocket (from `ws` directly or from @fastify/websocket) to a realtime session:
 * frames in, events out as JSON text frames, and the socket's own bounds:
 *
 * - Writes: the events a turn of the event loop sends on one connection (its contexts' audio, their
 *   final messages) are held until the turn ends and go out in one system call, not one each.
 * - Backpressure: while more than the service's `sendBufferBytes` is queued, the context about to
 *   send waits, so its speech session stops pulling audio and its native synthesis pauses.
 * - Unread output: a reply that is not audio (an error, an acknowledgement) never waits, so a
 *   client that sends and never reads would grow the server without end; once more than
 *   `maxUnreadBytes` waits unread, the connection is closed and nothing more is queued.
 * - Ending: a connection ended by a bound or a revoked key is closed with 1008 and the error code
 *   as its reason. One closed for flooding is no longer read from that moment, so what the flooder
 *   still sends costs nothing (it waits in the kernel, then the peer's window fills); any other is
 *   read on, so its peer can answer the close. A peer that has not closed within CLOSE_GRACE_MS is
 *   cut off, so neither it nor a shutdown waits on it.
 */
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { TtsError, isTtsError } from '../errors.js'
import type { RealtimeConnection } from '../realtime/connection.js'
import { clientFacing } from './dialect.js'
import { eventFrames } from './event-frames.js'
import type { Principal } from './keys.js'
import type { RealtimeEndpoint, RealtimeTranslator } from './realtime-endpoint.js'
import { FLOODING } from './realtime-keys.js'
import type { TtsService } from './service.js'
import { parseTarget } from './target.js'
import { turnWrites } from './turn-writes.js'

const DRAIN_POLL_MS = 5
/** How long a closed connection's peer has to answer the close before the socket is cut. */
export const CLOSE_GRACE_MS = 1000
/** Policy violation: a bound passed or the key no longer holds; the reason is the error code. */
export const CLOSE_POLICY = 1008

/** Frames a connection whose key comes in its first message may send before that key is checked. */
const MAX_FRAMES_BEFORE_KEY = 16

/** An accepted WebSocket: `ws`'s socket, and the connection it was upgraded from, whose writes it holds. */
export interface AcceptedSocket {
  socket: WebSocket
  wire: Duplex
}

/**
 * Serves an accepted WebSocket of `endpoint`. With no principal (the endpoint takes the key from
 * the first message), that message's key is checked first, and the frames that follow it wait.
 */
export function serveWebSocket(service: TtsService, endpoint: RealtimeEndpoint, principal: Principal | undefined, { socket, wire }: AcceptedSocket, params: Record<string, string>, url: string): void {
  const translator = endpoint.translator(params, parseTarget(url).query)
  if (principal) {
    serveRealtime(service, principal, socket, wire, endpoint, translator)
    return
  }
  const held: [WebSocket.RawData, boolean][] = []
  const hold = (data: WebSocket.RawData, isBinary: boolean) => {
    held.push([data, isBinary])
    if (held.length === 1) void authorizeFirst(data, isBinary)
    else if (held.length > MAX_FRAMES_BEFORE_KEY) refuse(new TtsError('MESSAGE_QUEUE_FULL', `at most ${MAX_FRAMES_BEFORE_KEY} messages before the key is checked`))
  }
  const refuse = (error: TtsError) => {
    socket.off('message', hold)
    if (socket.readyState !== socket.OPEN) return
    for (const event of translator.events(clientFacing(error).toJSON())) socket.send(JSON.stringify(event))
    socket.close(CLOSE_POLICY, error.code)
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS)
    socket.once('close', () => clearTimeout(timer))
  }
  const authorizeFirst = async (data: WebSocket.RawData, isBinary: boolean) => {
    try {
      const text = isBinary ? undefined : rawText(data)
      const key = text === undefined ? undefined : endpoint.messageKey!(text)
      const verified = await service.authorizeRealtimeKey(key)
      if (socket.readyState !== socket.OPEN) return
      socket.off('message', hold)
      const session = serveRealtime(service, verified, socket, wire, endpoint, translator)
      for (const [frame, binary] of held) session.receive(binary ? rawBytes(frame) : rawText(frame))
    } catch (error) {
      refuse(isTtsError(error) ? error : new TtsError('INTERNAL_ERROR', 'the key could not be checked', { cause: error }))
    }
  }
  socket.on('message', hold)
}

function rawBytes(data: WebSocket.RawData): Buffer {
  return Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
}

function rawText(data: WebSocket.RawData): string {
  return rawBytes(data).toString('utf8')
}

function serveRealtime(service: TtsService, principal: Principal, socket: WebSocket, wire: Duplex, endpoint: RealtimeEndpoint, translator: RealtimeTranslator): RealtimeConnection {
  const bound = service.sendBufferBytes
  const unreadBound = service.realtimeLimits.maxUnreadBytes
  const open = () => socket.readyState === socket.OPEN
  const waitForRoom = () =>
    new Promise<void>((resolve) => {
      const check = () => (!open() || socket.bufferedAmount <= bound ? resolve() : setTimeout(check, DRAIN_POLL_MS))
      check()
    })
  const session = service.openRealtime(principal, () => (open() && socket.bufferedAmount > bound ? waitForRoom() : undefined), {
    path: endpoint.path,
    dialect: endpoint.dialect.name,
    parse: (text) => translator.messages(text),
    flushMarkers: endpoint.flushMarkers ?? false,
  })

  // `ws` corks the wire around each frame's head and body; a cork held over the turn outlasts those.
  const holdTurn = turnWrites(wire)

  const onFrame = (data: WebSocket.RawData, isBinary: boolean) => session.receive(isBinary ? rawBytes(data) : rawText(data))
  let ended = false
  const end = (code: number, reason: string) => {
    if (ended) return
    ended = true
    socket.off('message', onFrame)
    if (socket.readyState === socket.CLOSED) return
    if (open()) socket.close(code, reason)
    if (FLOODING.has(reason)) socket.pause()
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS)
    socket.once('close', () => clearTimeout(timer))
  }

  session.on('message', (message) => {
    if (!open() || ended) return
    if (socket.bufferedAmount > unreadBound) {
      // Nothing more is queued for a client that does not read, not even this error: only the close.
      const error = new TtsError('UNREAD_OUTPUT_EXCEEDED', `more than ${unreadBound} bytes were sent and not read`)
      end(CLOSE_POLICY, error.code)
      session.fail(error)
      return
    }
    holdTurn()
    for (const frame of eventFrames(translator, message)) socket.send(frame, { binary: false })
  })
  session.on('close', (error?: TtsError) => (error ? end(CLOSE_POLICY, error.code) : end(1000, 'closed')))
  socket.on('message', onFrame)
  socket.on('close', () => session.destroy())
  socket.on('error', () => session.destroy())
  return session
}
