/**
 * `svc-tts serve` and `svc-tts keys`: the service on the embedded voices, with keys kept (as
 * hashes) in a data directory, one JSON log line per request on stdout, and a graceful shutdown
 * on SIGTERM or SIGINT.
 */
import { randomUUID } from 'node:crypto'
import { watchFile } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { homedir } from 'node:os'
import path from 'node:path'
import { createEngine, type EngineOptions } from '../engine/engine.js'
import { TtsError } from '../errors.js'
import { API_KEYS_ENV, KeyStore, SCOPES, type Scope } from './keys.js'
import { TtsService, type RequestLog } from './service.js'
import { closeWithin, createTtsServer } from './standalone.js'

export const FRAMEWORKS = ['standalone', 'express', 'fastify'] as const
export type Framework = (typeof FRAMEWORKS)[number]

export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  framework: Framework
  /** How long a shutdown lets streams finish before cancelling them. */
  shutdownDeadlineMs: number
  /** Neural packs and device (from --models-dir). */
  engine?: Pick<EngineOptions, 'models' | 'device' | 'modelThreads'>
}

export function defaultDataDir(): string {
  return process.env.SVC_TTS_DATA_DIR ?? path.join(homedir(), '.svc-tts')
}

function logLine(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`)
}

/** Keys from the environment, else the data directory's key file, creating (and printing once) a first key. */
async function loadKeys(dataDir: string): Promise<KeyStore> {
  const fromEnv = KeyStore.fromEnv(process.env[API_KEYS_ENV])
  if (fromEnv) return fromEnv
  const store = await KeyStore.load(dataDir)
  if (store.size === 0) {
    const { key } = await store.create('default')
    process.stdout.write(`Created an API key (it is shown only this once; only its hash is kept in ${store.path}):\n${key}\n`)
  }
  watchFile(store.path!, { interval: 1000 }, () => void store.reload().catch(() => {})).unref()
  return store
}

interface Running {
  address: AddressInfo
  close(deadlineMs: number): Promise<void>
}

async function listenNode(server: Server, options: ServeOptions): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, resolve)
  })
  return server.address() as AddressInfo
}

async function start(service: TtsService, options: ServeOptions): Promise<Running> {
  if (options.framework === 'standalone') {
    const server = createTtsServer(service)
    return { address: await server.listen(options.port, options.host), close: (deadlineMs) => server.close(deadlineMs) }
  }
  if (options.framework === 'express') {
    const [{ default: express }, { createTtsRouter }] = await Promise.all([import('express'), import('./express.js')])
    const app = express()
    const router = createTtsRouter(service)
    app.use(router)
    const server = createServer(app)
    router.attachWebSocket(server)
    const address = await listenNode(server, options)
    return {
      address,
      close: async (deadlineMs) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        await router.close(deadlineMs)
        server.closeIdleConnections()
        await closeWithin(closed, server, 1000)
      },
    }
  }
  const [{ default: Fastify }, { default: ttsPlugin }] = await Promise.all([import('fastify'), import('./fastify.js')])
  const app = Fastify({ genReqId: () => randomUUID() })
  await app.register(ttsPlugin, { service, shutdownDeadlineMs: options.shutdownDeadlineMs })
  await app.listen({ port: options.port, host: options.host })
  return { address: app.server.address() as AddressInfo, close: () => app.close() }
}

export async function serve(options: ServeOptions): Promise<void> {
  const keys = await loadKeys(options.dataDir)
  const engine = await createEngine({ dataDir: options.dataDir, ...options.engine })
  const service = new TtsService({ engine, keys, log: (entry: RequestLog) => logLine({ level: 'info', msg: 'request', ...entry }) })
  let running: Running
  try {
    running = await start(service, options)
  } catch (error) {
    await engine.close()
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error(`--framework ${options.framework} needs its packages installed (${String((error as Error).message)})`)
    }
    throw error
  }
  logLine({ level: 'info', msg: 'listening', url: `http://${options.host}:${running.address.port}`, framework: options.framework, keys: keys.size })

  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return
      stopping = true
      logLine({ level: 'info', msg: 'shutting down', signal, deadline_ms: options.shutdownDeadlineMs })
      void running
        .close(options.shutdownDeadlineMs)
        .then(() => engine.close())
        .then(() => {
          logLine({ level: 'info', msg: 'stopped' })
          resolve()
        })
    }
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
  })
}

function parseScopes(value: string | undefined): Scope[] {
  if (!value) return [...SCOPES]
  const scopes = value.split(',').map((s) => s.trim())
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new TtsError('INVALID_REQUEST', `unknown scope '${scope}' (scopes: ${SCOPES.join(', ')})`)
  }
  return scopes as Scope[]
}

/** `svc-tts keys create|list|revoke`: the data directory's key file. */
export async function manageKeys(action: string | undefined, argument: string | undefined, values: { 'data-dir'?: string; name?: string; scopes?: string }): Promise<number> {
  const store = await KeyStore.load(values['data-dir'] ?? defaultDataDir())
  if (action === 'create') {
    const { key, record } = await store.create(values.name ?? 'key', parseScopes(values.scopes))
    process.stdout.write(`${key}\n`)
    process.stderr.write(`created key ${record.id} (${record.scopes.join(', ')}); it is shown only this once\n`)
    return 0
  }
  if (action === 'list') {
    for (const key of store.list()) process.stdout.write(`${key.id}  ${key.name}  ${key.scopes.join(',')}  ${key.created_at}\n`)
    return 0
  }
  if (action === 'revoke' && argument) {
    if (await store.revoke(argument)) return 0
    process.stderr.write(`no key has id '${argument}'\n`)
    return 1
  }
  process.stderr.write('usage: svc-tts keys create [--name N] [--scopes text_to_speech,voices] | list | revoke ID  [--data-dir DIR]\n')
  return 1
}
