/**
 * The one way the service talks to Redis: an ioredis client (an optional peer dependency, loaded
 * when asked for) that fails a command at once while it is disconnected, instead of queueing it,
 * and keeps reconnecting in the background. A request never waits on a Redis that is gone: it gets
 * 503 STORE_UNAVAILABLE, and the next request after Redis returns is served as before.
 */
import type { Redis, RedisOptions } from 'ioredis'
import { TtsError } from '../../errors.js'

/** The environment variable `svc-tts serve` reads when --redis-url is not given. */
export const REDIS_URL_ENV = 'SVC_TTS_REDIS_URL'

/** Longest a command may wait for its answer (a Redis that hangs rather than refuses). */
const COMMAND_TIMEOUT_MS = 2000
/** Reconnection back-off: 100 ms more each try, up to this. */
const MAX_RECONNECT_DELAY_MS = 2000
/** A warning about the same failure is repeated at most this often. */
const WARNING_INTERVAL_MS = 10_000

export interface RedisConnectionOptions {
  /** redis://[user:password@]host:port[/db] (rediss:// for TLS). */
  url: string
  /** Told when Redis becomes unreachable, and when it is back (at most one line per 10 s while it stays down). */
  onWarning?: (message: string) => void
}

/** ioredis, or MISSING_DEPENDENCY naming what to install. */
export async function loadPeer<T>(packages: string, what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw cause
    throw new TtsError('MISSING_DEPENDENCY', `${what} needs its packages installed: npm install ${packages}`, { cause })
  }
}

/** Whatever Redis failed with, as the 503 a client is answered with. */
export function unavailable(cause: unknown): TtsError {
  if (cause instanceof TtsError) return cause
  return new TtsError('STORE_UNAVAILABLE', 'the shared store (Redis) did not answer', { cause, extra: { retry_after_seconds: 1 } })
}

/** The client's settings: fail fast while disconnected, reconnect for ever. */
export function clientOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
  }
}

/** Warnings for a client's failures, one per failure kind per interval, and one when it is back. */
export function watchClient(client: Redis, onWarning: ((message: string) => void) | undefined, url: string): void {
  let lastWarned = 0
  let down = false
  client.on('error', (error: Error) => {
    const now = Date.now()
    down = true
    if (now - lastWarned < WARNING_INTERVAL_MS) return
    lastWarned = now
    onWarning?.(`Redis at ${redactedUrl(url)} is unreachable (${error.message}): what needs it answers 503 STORE_UNAVAILABLE until it is back`)
  })
  client.on('ready', () => {
    if (!down) return
    down = false
    lastWarned = 0
    onWarning?.(`Redis at ${redactedUrl(url)} is reachable again`)
  })
}

/**
 * A client once its first connection is made or has failed (refused at once, or past the 2 s
 * connect timeout): a Redis that is down does not hold a server's start; the client goes on
 * trying in the background.
 */
export async function connectRedis({ url, onWarning }: RedisConnectionOptions): Promise<Redis> {
  const { Redis } = await loadPeer('ioredis', 'Redis (--redis-url)', () => import('ioredis'))
  const client = new Redis(url, clientOptions())
  watchClient(client, onWarning, url)
  await new Promise<void>((resolve) => {
    const settle = () => {
      client.off('ready', settle)
      client.off('error', settle)
      resolve()
    }
    client.once('ready', settle)
    client.once('error', settle)
  })
  return client
}

/** Closes a client: QUIT when it answers, else the socket at once. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect()
    return
  }
  await client.quit().catch(() => client.disconnect())
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'the configured URL'
  }
}
