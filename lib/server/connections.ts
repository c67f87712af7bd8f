/**
 * A node:http server kept serving under slow or idle connections (slowloris): headers must arrive
 * within `headersTimeout` and a request body within `requestTimeout`, and the connections are
 * capped below the process's open-file limit. At the cap, a new connection evicts the oldest one
 * that is not serving a request (an idle keep-alive, or headers still trickling in), so held-open
 * sockets cannot lock out the clients that send whole requests.
 */
import { readFileSync } from 'node:fs'
import type { Server, ServerOptions } from 'node:http'
import type { Socket } from 'node:net'

export interface ConnectionLimits {
  /** The whole request head must arrive within this (default 10 s). */
  headersTimeoutMs?: number
  /** The whole request, body included, must arrive within this (default 120 s: a 20 MiB sample on a slow link). */
  requestTimeoutMs?: number
  /** Open connections at most (default: the open-file limit less 128, at least 64). */
  maxConnections?: number
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000
/** Files the process keeps for itself (the voice library, the addon's, stdio) out of the open-file limit. */
const RESERVED_FILES = 128

/** The soft limit on open files, from /proc (Node has no getrlimit); undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const soft = Number(line?.split(/\s{2,}/)[1])
    return Number.isFinite(soft) ? soft : undefined
  } catch {
    return undefined
  }
}

export function defaultMaxConnections(): number {
  return Math.max(64, (openFileLimit() ?? 1024) - RESERVED_FILES)
}

/** The options node:http takes for the timeouts (the check runs every second, not every 30). */
export function serverTimeouts(limits: ConnectionLimits = {}): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeout: limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: 1000,
  }
}

function evictOldestIdle(open: Map<Socket, { busy: number }>): boolean {
  for (const [socket, state] of open) {
    if (state.busy > 0) continue
    open.delete(socket)
    socket.destroy()
    return true
  }
  return false
}

/** Caps `server`'s connections, evicting the oldest not serving a request when a new one comes at the cap. */
export function capConnections(server: Server, limits: ConnectionLimits = {}): void {
  const max = limits.maxConnections ?? defaultMaxConnections()
  // Insertion order is age order; a connection serving a request (or upgraded) is busy.
  const open = new Map<Socket, { busy: number }>()
  server.on('connection', (socket: Socket) => {
    if (open.size >= max && !evictOldestIdle(open)) {
      socket.destroy()
      return
    }
    open.set(socket, { busy: 0 })
    socket.once('close', () => open.delete(socket))
  })
  server.on('request', (request, response) => {
    const state = open.get(request.socket as Socket)
    if (!state) return
    state.busy++
    response.once('close', () => state.busy--)
  })
  server.on('upgrade', (request) => {
    const state = open.get(request.socket as Socket)
    if (state) state.busy++  // the socket belongs to the WebSocket now, until it closes
  })
}
