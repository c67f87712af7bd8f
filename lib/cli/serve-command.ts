/** `svc-tts serve`'s command line, checked, then the service started (loaded only for this command: it is most of the package). */
import { DATABASE_URL_ENV, defaultDataDir } from './data-dir.js'
import { usageError } from './exit.js'
import { limitsSchema } from '../server/limits.js'
import { jobsOptionsSchema } from '../server/jobs/options.js'
import { numberPairs } from './pairs.js'
import { readModelsDir } from '../neural/models-dir.js'
import { DIALECT_NAMES } from '../server/dialects/index.js'
import { FRAMEWORKS, type Framework } from '../server/mount.js'
import { REDIS_URL_ENV } from '../server/redis/connection.js'
import { serve } from './serve.js'

export interface ServeCommandValues {
  port?: string
  host?: string
  'data-dir'?: string
  framework?: string
  dialects?: string
  'metrics-port'?: string
  'database-url'?: string
  'drain-seconds'?: string
  'cors-origins'?: string
  wyoming?: string
  playground?: string
  'redis-url'?: string
  limits?: string
  'jobs-dir'?: string
  'jobs-options'?: string
  'jobs-worker'?: string
  'slot-lease-seconds'?: string
  'models-dir'?: string
}

/** The jobs' options --jobs-options takes (the directory has its flag, and worker is on or off). */
const JOBS_FLAG_OPTIONS = { maxCharacters: true, maxAudioSeconds: true, resultTtlSeconds: true, concurrency: true, attempts: true, lockMs: true } as const

function portOf(value: string, flag: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`${flag} must be a port number`)
  return port
}

/** `--dialects openai,cartesia` (or `none`): each dialect on or off. */
function dialectsOf(list: string): Record<string, boolean> {
  const named = list === 'none' ? [] : list.split(',').map((name) => name.trim())
  const unknown = named.filter((name) => !DIALECT_NAMES.includes(name))
  if (unknown.length > 0) throw usageError(`--dialects takes ${DIALECT_NAMES.join(', ')} (comma-separated) or none; unknown: ${unknown.join(', ')}`)
  return Object.fromEntries(DIALECT_NAMES.map((name) => [name, named.includes(name)]))
}

function onOff(option: string, value: string): boolean {
  if (value !== 'on' && value !== 'off') throw usageError(`${option} takes on or off`)
  return value === 'on'
}

export async function serveCommand(values: ServeCommandValues): Promise<number> {
  const framework = values.framework ?? 'standalone'
  if (!(FRAMEWORKS as readonly string[]).includes(framework)) throw usageError(`--framework must be one of ${FRAMEWORKS.join(', ')}`)
  const port = portOf(values.port ?? '8080', '--port')
  const databaseUrl = values['database-url'] ?? process.env[DATABASE_URL_ENV]
  const drainSeconds = Number(values['drain-seconds'] ?? 5)
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0 || drainSeconds > 600) throw usageError('--drain-seconds must be a number of seconds from 0 to 600')
  // stdout carries serve's log lines, so Wyoming cannot have it.
  if (values.wyoming !== undefined && !/^(tcp|unix):\/\/./.test(values.wyoming)) throw usageError('--wyoming takes tcp://host:port or unix://path')
  const redisUrl = values['redis-url'] ?? process.env[REDIS_URL_ENV]
  if (redisUrl !== undefined && !/^rediss?:\/\/./.test(redisUrl)) throw usageError('--redis-url takes redis://host:port (or rediss:// for TLS)')
  if (values['jobs-dir'] !== undefined && redisUrl === undefined) throw usageError('--jobs-dir needs --redis-url (or SVC_TTS_REDIS_URL): the jobs are queued there')
  if ((values['jobs-options'] ?? values['jobs-worker']) !== undefined && values['jobs-dir'] === undefined) throw usageError('--jobs-options and --jobs-worker need --jobs-dir')
  const slotLeaseSeconds = values['slot-lease-seconds'] === undefined ? undefined : Number(values['slot-lease-seconds'])
  if (slotLeaseSeconds !== undefined && !(slotLeaseSeconds >= 0.3 && slotLeaseSeconds <= 3600)) throw usageError('--slot-lease-seconds must be a number of seconds from 0.3 to 3600')
  if (slotLeaseSeconds !== undefined && redisUrl === undefined) throw usageError('--slot-lease-seconds needs --redis-url: slots are leased in Redis')
  const jobs = {
    ...(values['jobs-options'] !== undefined && numberPairs('--jobs-options', values['jobs-options'], jobsOptionsSchema.pick(JOBS_FLAG_OPTIONS))),
    ...(values['jobs-worker'] !== undefined && { worker: onOff('--jobs-worker', values['jobs-worker']) }),
  }
  await serve({
    port, host: values.host ?? '127.0.0.1', dataDir: values['data-dir'] ?? defaultDataDir(), framework: framework as Framework, shutdownDeadlineMs: 10_000,
    drainGraceMs: Math.round(drainSeconds * 1000),
    ...(databaseUrl !== undefined && { databaseUrl }),
    ...(values['metrics-port'] !== undefined && { metricsPort: portOf(values['metrics-port'], '--metrics-port') }),
    ...(values['cors-origins'] !== undefined && { corsOrigins: values['cors-origins'].split(',').map((origin) => origin.trim()) }),
    ...(values.dialects !== undefined && { dialects: dialectsOf(values.dialects) }),
    ...(values.wyoming !== undefined && { wyoming: values.wyoming }),
    ...(values.playground !== undefined && { playground: onOff('--playground', values.playground) }),
    ...(redisUrl !== undefined && { redisUrl }),
    ...(values.limits !== undefined && { limits: numberPairs('--limits', values.limits, limitsSchema) }),
    ...(values['jobs-dir'] !== undefined && { jobsDir: values['jobs-dir'], jobs }),
    ...(slotLeaseSeconds !== undefined && { slotLeaseMs: Math.round(slotLeaseSeconds * 1000) }),
    ...(values['models-dir'] && { engine: readModelsDir(values['models-dir']) }),
  })
  return 0
}
