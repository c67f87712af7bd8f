/**
 * `svc-tts serve`: the service on the embedded voices, with keys kept (as hashes) in a data
 * directory, one JSON log line per request on stdout, and a graceful shutdown on SIGTERM or SIGINT.
 */
import { watchFile } from 'node:fs'
import { createEngine } from '../engine/create.js'
import type { EngineOptions } from '../engine/engine.js'
import { API_KEYS_ENV, KeyStore } from '../server/keys.js'
import { mount, type Framework, type MountedService } from '../server/mount.js'
import { TtsService } from '../server/service.js'
import { type RequestLog } from '../server/service-options.js'
import { createWyomingServer, type WyomingServer } from '../server/wyoming/server.js'

export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  framework: Framework
  /** How long a shutdown lets streams finish before cancelling them. */
  shutdownDeadlineMs: number
  /** Each API dialect on or off (default: all on). */
  dialects?: Record<string, boolean>
  /** Neural packs and device (from --models-dir). */
  engine?: Pick<EngineOptions, 'models' | 'device' | 'modelThreads'>
  /** A Wyoming server beside the HTTP one, on the same engine (tcp:// or unix://). */
  wyoming?: string
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

export async function serve(options: ServeOptions): Promise<void> {
  const keys = await loadKeys(options.dataDir)
  const engine = await createEngine({ dataDir: options.dataDir, ...options.engine })
  const service = new TtsService({ engine, keys, ...(options.dialects && { dialects: options.dialects }), log: (entry: RequestLog) => logLine({ level: 'info', msg: 'request', ...entry }) })
  let running: MountedService
  let wyoming: WyomingServer | undefined
  try {
    running = await mount(service, options.framework, options)
  } catch (error) {
    await engine.close()
    throw error
  }
  logLine({ level: 'info', msg: 'listening', url: `http://${options.host}:${running.address.port}`, framework: options.framework, keys: keys.size })
  if (options.wyoming !== undefined) {
    try {
      wyoming = await createWyomingServer(engine, {
        uri: options.wyoming,
        log: (entry) => logLine({ level: 'info', msg: 'wyoming synthesis', ...entry }),
        onWarning: (message) => logLine({ level: 'warn', msg: message }),
      })
    } catch (error) {
      await running.close(0)
      await engine.close()
      throw error
    }
    logLine({ level: 'info', msg: 'wyoming listening', url: wyoming.url })
  }

  await new Promise<void>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return
      stopping = true
      logLine({ level: 'info', msg: 'shutting down', signal, deadline_ms: options.shutdownDeadlineMs })
      void Promise.all([running.close(options.shutdownDeadlineMs), wyoming?.close(options.shutdownDeadlineMs)])
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
