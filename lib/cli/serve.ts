/**
 * `svc-tts serve`: the service on the embedded voices, with keys kept (as hashes) in a data
 * directory, one JSON log line per request on stdout, and a graceful shutdown on SIGTERM or SIGINT.
 */
import { watchFile } from 'node:fs'
import { setTimeout } from 'node:timers/promises'
import { createEngine } from '../engine/create.js'
import type { EngineOptions } from '../engine/engine.js'
import { isLoopback } from '../server/browsers/token-routes.js'
import { SharedDatabase } from '../postgres/database.js'
import { API_KEYS_ENV, KeyStore } from '../server/keys.js'
import { databaseKeys } from '../server/postgres-keys.js'
import { PostgresDictionaryStore } from '../voices/dictionaries/postgres-store.js'
import { PostgresVoiceStore } from '../voices/postgres-store.js'
import { serveOperations, type OperationsServer } from '../server/operations/operations-server.js'
import { mount, type Framework, type MountedService } from '../server/mount.js'
import { TtsService } from '../server/service.js'
import { type RequestLog } from '../server/service-options.js'
import { createWyomingServer, type WyomingServer } from '../server/wyoming/server.js'
import { batchedLines, type LogLines } from './log-lines.js'
import { withKeyLimits, type LimitOptions } from '../server/limits.js'
import { PostgresUsage } from '../server/postgres-usage.js'
import { sharedLimits, type SharedLimits } from '../server/redis/shared-limits.js'
import { JobService } from '../server/jobs/jobs.js'
import type { JobsOptions } from '../server/jobs/options.js'
import { jobRoutes } from '../server/jobs/routes.js'

export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  framework: Framework
  /** How long a shutdown lets streams finish before cancelling them. */
  shutdownDeadlineMs: number
  /** After SIGTERM, how long requests are still served while /readyz says 503 (load balancers notice), before the shutdown. */
  drainGraceMs: number
  /** Each API dialect on or off (default: all on). */
  dialects?: Record<string, boolean>
  /** The playground page (default: on when the host is loopback, so it is not offered to a network by surprise). */
  playground?: boolean
  /** Neural packs and device (from --models-dir); the synthesis threads' priority. */
  engine?: Pick<EngineOptions, 'models' | 'device' | 'modelThreads' | 'threadNice'>
  /** Voices and keys in a PostgreSQL database replicas share, instead of the data directory's files. */
  databaseUrl?: string
  /** The metrics and probes on a port of their own, with no key. */
  metricsPort?: number
  /** Origins whose pages may call the service (CORS). */
  corsOrigins?: string[]
  /** A Wyoming server beside the HTTP one, on the same engine (tcp:// or unix://). */
  wyoming?: string
  /** Every key's limits (concurrentRequests, requestsPerWindow, charactersPerPeriod, ...), in memory or in Redis. */
  limits?: LimitOptions
  /** Per-key limits counted in this Redis, shared with every replica that names it (docs/server.md#redis). */
  redisUrl?: string
  /** Long-form jobs (POST /jobs) on the Redis of redisUrl, their audio in this directory every replica shares (docs/server.md#jobs). */
  jobsDir?: string
  /** The jobs' other options (maxCharacters, maxAudioSeconds, resultTtlSeconds, worker, concurrency, attempts, lockMs). */
  jobs?: Omit<JobsOptions, 'dir'>
  /** How long a concurrency slot in Redis outlives a replica that died (default 15 s). */
  slotLeaseMs?: number
}

type LogLine = (fields: Record<string, unknown>) => void

function jsonLines(lines: LogLines): LogLine {
  return (fields) => lines.write(JSON.stringify({ time: new Date().toISOString(), ...fields }))
}

/**
 * Keys from the environment, else the shared database's (none is made there: replicas starting
 * together would each make one), else the data directory's key file, creating (and printing once)
 * a first key.
 */
async function loadKeys(dataDir: string, database: SharedDatabase | undefined, lines: LogLines, logLine: LogLine): Promise<KeyStore> {
  const fromEnv = KeyStore.fromEnv(process.env[API_KEYS_ENV])
  if (fromEnv) return fromEnv
  if (database) {
    const shared = await databaseKeys(database)
    if (shared.size === 0) logLine({ level: 'warn', msg: 'the database holds no API key: create one with svc-tts keys create --database-url URL' })
    return shared
  }
  const store = await KeyStore.load(dataDir)
  if (store.size === 0) {
    const { key } = await store.create('default')
    lines.write(`Created an API key (it is shown only this once; only its hash is kept in ${store.path}):\n${key}`)
  }
  watchFile(store.path!, { interval: 1000 }, () => void store.reload().catch(() => {})).unref()
  return store
}

/** Whether `host` (an address, or localhost) is reachable only from this machine. */
export function isLoopbackHost(host: string): boolean {
  return isLoopback(host === 'localhost' ? '127.0.0.1' : host)
}

/** The key the playground's tokens are minted for on loopback: the first that may speak and manage voices. */
function playgroundKey(keys: KeyStore, host: string): string | undefined {
  if (!isLoopbackHost(host)) return undefined
  return keys.list().find((key) => key.scopes.includes('text_to_speech') && key.scopes.includes('voices'))?.id
}

/**
 * Listens at once, while the engine loads (/readyz says 503 until its packs are loaded and warmed);
 * SIGTERM drains (/readyz 503, requests still served for the grace), then shuts down gracefully;
 * SIGINT (a person at a terminal) shuts down without the grace.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const lines = batchedLines(process.stdout)
  try {
    await serveLogging(options, lines, jsonLines(lines))
  } finally {
    lines.close()
  }
}

async function serveLogging(options: ServeOptions, lines: LogLines, logLine: LogLine): Promise<void> {
  const database = options.databaseUrl === undefined ? undefined : await SharedDatabase.connect(options.databaseUrl)
  let keys: KeyStore
  try {
    keys = await loadKeys(options.dataDir, database, lines, logLine)
  } catch (error) {
    await database?.close()
    throw error
  }
  const loading = performance.now()
  const warn = (message: string) => logLine({ level: 'warn', msg: message })
  const limits: SharedLimits | undefined = options.redisUrl === undefined
    ? undefined
    : await sharedLimits({ url: options.redisUrl, onWarning: warn }, { ...(options.limits && { limits: options.limits }), ...(options.slotLeaseMs !== undefined && { slotLeaseMs: options.slotLeaseMs }) })
  const stores = database && { voiceStore: new PostgresVoiceStore(database), dictionaryStore: new PostgresDictionaryStore(database) }
  const usage = database && new PostgresUsage(database, warn)
  const engine = createEngine({ dataDir: options.dataDir, ...stores, ...options.engine })
  const jobs = options.jobsDir === undefined || options.redisUrl === undefined
    ? undefined
    : await JobService.start({
      redisUrl: options.redisUrl,
      engine,
      jobs: { ...options.jobs, dir: options.jobsDir },
      ...(limits && { limiter: withKeyLimits(limits.limiter, keys) }),
      onWarning: warn,
      log: (entry) => logLine({ level: 'info', ...entry }),
    })
  const playground = options.playground ?? isLoopbackHost(options.host)
  const service = new TtsService({
    engine,
    keys,
    playground,
    ...(limits ? { limiter: limits.limiter } : options.limits && { limits: options.limits }),
    ...(usage && { usage }),
    ...(jobs && { routes: jobRoutes(jobs) }),
    ...(options.dialects && { dialects: options.dialects }),
    ...(options.corsOrigins && { cors: { origins: options.corsOrigins } }),
    tokens: { playgroundKey: playground ? playgroundKey(keys, options.host) : undefined },
    log: (entry: RequestLog) => logLine({ level: 'info', msg: 'request', ...entry }),
  })
  // The worker first: its running jobs go back to the queue at their last commit, for another replica; then the engine, and the stores.
  const closeEngine = async () => {
    await jobs?.close()
    await Promise.all([engine.then((loaded) => loaded.close(), () => {}), limits?.close(), usage?.close()])
    await database?.close()
  }
  let running: MountedService
  let operations: OperationsServer | undefined
  let wyoming: WyomingServer | undefined
  try {
    running = await mount(service, options.framework, options)
    if (options.metricsPort !== undefined) operations = await serveOperations(service, options.metricsPort, options.host)
  } catch (error) {
    await closeEngine()
    throw error
  }
  const url = `http://${options.host}:${running.address.port}`
  const metricsUrl = operations && `http://${options.host}:${operations.address.port}/metrics`
  // Bound: the probes answer (/readyz 503) while the models load; 'listening' once requests are served.
  logLine({ level: 'info', msg: 'starting', url, ...(metricsUrl && { metrics_url: metricsUrl }) })
  try {
    await service.started
  } catch (error) {
    await running.close(0)
    await operations?.close()
    throw error
  }
  logLine({ level: 'info', msg: 'listening', url, framework: options.framework, keys: keys.size, load_ms: Math.round(performance.now() - loading), ...(metricsUrl && { metrics_url: metricsUrl }), ...(playground && { playground: `${url}/playground` }) })
  if (options.wyoming !== undefined) {
    try {
      wyoming = await createWyomingServer(service.engine, {
        uri: options.wyoming,
        log: (entry) => logLine({ level: 'info', msg: 'wyoming synthesis', ...entry }),
        observe: (event, signal) => service.observeSynthesis(event, 'wyoming', signal),
        onWarning: (message) => logLine({ level: 'warn', msg: message }),
      })
    } catch (error) {
      await running.close(0)
      await operations?.close()
      await closeEngine()
      throw error
    }
    logLine({ level: 'info', msg: 'wyoming listening', url: wyoming.url })
  }

  await new Promise<void>((resolve, reject) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return
      stopping = true
      const graceMs = signal === 'SIGTERM' ? options.drainGraceMs : 0
      service.drain()
      logLine({ level: 'info', msg: 'shutting down', signal, drain_grace_ms: graceMs, deadline_ms: options.shutdownDeadlineMs })
      void setTimeout(graceMs)
        .then(() => Promise.all([running.close(options.shutdownDeadlineMs), wyoming?.close(options.shutdownDeadlineMs)]))
        .then(() => closeEngine())
        .then(() => operations?.close())
        .then(() => {
          logLine({ level: 'info', msg: 'stopped' })
          resolve()
        }, reject)
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}
