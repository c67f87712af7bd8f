/**
 * A realtime WebSocket path and the dialect it speaks. Every endpoint drives the same realtime
 * connection (contexts, bounds, backpressure, keys); a dialect only renames: its client's frames
 * become the SPEC's messages, which pass the one gate, and the connection's events become its
 * client's messages.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { ClientMessage, ServerMessage } from '../realtime/messages.js'
import { parseClientMessage } from '../realtime/messages.js'
import { header, SPEC_DIALECT, type Dialect } from './dialect.js'
import { WEBSOCKET_PATH } from './tts-routes.js'

/** One connection's translation (it may keep state: what the first message said, the contexts it has opened). */
export interface RealtimeTranslator {
  /** A frame's text as the SPEC's messages, in order; throws the refusal. */
  messages(text: string): ClientMessage[]
  /** One of the connection's events as this dialect's messages (none to send nothing). An event's `audio` is passed on as it is, never read: the frames carry the real audio in its place. */
  events(event: ServerMessage): unknown[]
}

export interface RealtimeEndpoint {
  /** Express-style path, with `:name` parameters. */
  path: string
  /** How a refused handshake is answered. */
  dialect: Dialect
  /** Whether the handshake must name the SPEC's version (it is checked whenever given). */
  versionRequired: boolean
  /** The key as the handshake presents it (query or headers); undefined when none came. */
  handshakeKey(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined
  /** The key a first message carries, for clients that cannot set headers (ElevenLabs' `xi_api_key`); absent: the handshake must carry it. */
  messageKey?(text: string): string | undefined
  /** Whether its clients are told when each flush's audio is all out (the connection's `flushed` events). */
  flushMarkers?: boolean
  translator(params: Record<string, string>, query: URLSearchParams): RealtimeTranslator
}

/** The SPEC's own WebSocket: its messages and events as they are. */
export const SPEC_REALTIME: RealtimeEndpoint = {
  path: WEBSOCKET_PATH,
  dialect: SPEC_DIALECT,
  versionRequired: true,
  // access_token: a browser token (a browser's WebSocket can set no header).
  handshakeKey: (headers, query) => query.get('api_key') ?? query.get('access_token') ?? header(headers, 'api_key') ?? header(headers, 'x-api-key'),
  translator: () => ({ messages: (text) => [parseClientMessage(text)], events: (event) => [event] }),
}
