/** Starts the service on each adapter over loopback (the mount `svc-tts serve` uses), and the clients the server tests use. */
import { request as httpRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import type { Engine } from '../../lib/index.js'
import { FRAMEWORKS, mount, type Framework } from '../../lib/server/mount.js'
import { TtsService } from '../../lib/server/service.js'
import type { ServiceOptions } from '../../lib/server/service-options.js'

/** The adapters `svc-tts serve --framework` offers; the shared suites run against each. */
export const ADAPTERS = FRAMEWORKS
export type AdapterName = Framework

export interface Running {
  base: string
  ws: string
  service: TtsService
  /** Graceful shutdown with the given deadline. */
  close(deadlineMs?: number): Promise<void>
}

export async function start(adapter: AdapterName, options: Omit<ServiceOptions, 'engine'> & { engine: Engine }): Promise<Running> {
  const service = new TtsService(options)
  const mounted = await mount(service, adapter, { port: 0, host: '127.0.0.1' })
  const host = `127.0.0.1:${mounted.address.port}`
  return { base: `http://${host}`, ws: `ws://${host}`, service, close: (deadlineMs = 10_000) => mounted.close(deadlineMs) }
}

export const KEY = 'sk_test_full_access_key_0123456789abcdef'
export const VOICES_ONLY_KEY = 'sk_test_voices_only_key_0123456789abcdef'
export const TEST_KEYS = [
  { key: KEY, name: 'full' },
  { key: VOICES_ONLY_KEY, name: 'voices only', scopes: ['voices' as const] },
]

export function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    ...(signal && { signal }),
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, version: 'v1', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/**
 * A streaming request on node:http: `received(bytes)` resolves once that much audio came in, and
 * `disconnect()` destroys the socket: a real disconnect (fetch's abort may leave the connection open).
 */
export function openStream(base: string, body: unknown): { received(bytes: number): Promise<void>; disconnect(): void } {
  let total = 0
  const waiters: { bytes: number; resolve: () => void }[] = []
  const request = httpRequest(`${base}/text_to_speech/streaming`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY } }, (response) => {
    response.on('data', (part: Buffer) => {
      total += part.length
      for (const waiter of waiters.filter((w) => total >= w.bytes)) waiter.resolve()
    })
  })
  request.on('error', () => {})
  request.end(JSON.stringify(body))
  return {
    received: (bytes) => new Promise((resolve) => (total >= bytes ? resolve() : waiters.push({ bytes, resolve }))),
    disconnect: () => request.destroy(),
  }
}

/** A WebSocket client that records every event. */
export class WsClient {
  readonly events: Record<string, unknown>[] = []
  readonly socket: WebSocket
  closed: Promise<{ code: number; reason: string }>

  private constructor(socket: WebSocket) {
    this.socket = socket
    socket.on('message', (data) => this.events.push(JSON.parse(String(data)) as Record<string, unknown>))
    this.closed = new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })))
  }

  static connect(url: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> {
    const socket = new WebSocket(url, options)
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsClient(socket)))
      socket.once('unexpected-response', (_request, response) => {
        let body = ''
        response.on('data', (part: Buffer) => (body += String(part)))
        response.on('end', () => reject(Object.assign(new Error(`refused ${response.statusCode}`), { status: response.statusCode, body: JSON.parse(body) as unknown, headers: response.headers })))
      })
      socket.once('error', reject)
    })
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message))
  }

  of(contextId: string): Record<string, unknown>[] {
    return this.events.filter((e) => e.context_id === contextId)
  }

  /** The context's audio joined (PCM bytes). */
  audio(contextId: string): Buffer {
    return Buffer.concat(this.of(contextId).map((e) => Buffer.from(String(e.audio ?? ''), 'base64')))
  }

  finished(contextId: string): boolean {
    return this.of(contextId).some((e) => e.final === true && e.audio === '' && this.of(contextId).indexOf(e) === this.of(contextId).length - 1 && this.of(contextId).length >= 2)
  }

  async until(condition: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out; events: ${JSON.stringify(this.events.map((e) => ({ ...e, audio: e.audio ? `${String(e.audio).length}b64` : e.audio })))}`)
      await sleep(5)
    }
  }
}
