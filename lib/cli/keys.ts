/** `svc-tts keys create|list|limits|revoke|usage`: the data directory's key file, or the shared database's keys (and usage). */
import { SharedDatabase } from '../postgres/database.js'
import { KeyStore, SCOPES, type Scope } from '../server/keys.js'
import { keyLimitsSchema, type KeyLimits } from '../server/limits.js'
import { databaseKeys } from '../server/postgres-keys.js'
import { PostgresUsage } from '../server/postgres-usage.js'
import { DATABASE_URL_ENV, defaultDataDir } from './data-dir.js'
import { usageError } from './exit.js'
import { numberPairs } from './pairs.js'

const USAGE = `usage: svc-tts keys create [--name N] [--scopes text_to_speech,voices,tokens,metrics] [--limits name=N,...] | list
                    | limits ID --limits name=N,...|none | revoke ID | usage [--hours 24]  [--data-dir DIR | --database-url URL]
a key's own limits: ${Object.keys(keyLimitsSchema.shape).join(', ')} (docs/server.md#limits)
`

interface KeyValues {
  'data-dir'?: string
  'database-url'?: string
  name?: string
  scopes?: string
  limits?: string
  hours?: string
}

function limitsText(limits: KeyLimits | undefined): string {
  return limits ? Object.entries(limits).map(([name, value]) => `${name}=${value}`).join(',') : '-'
}

function parseScopes(value: string | undefined): Scope[] {
  if (!value) return [...SCOPES]
  const scopes = value.split(',').map((s) => s.trim())
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw usageError(`unknown scope '${scope}' (scopes: ${SCOPES.join(', ')})`)
  }
  return scopes as Scope[]
}

export async function manageKeys(action: string | undefined, argument: string | undefined, values: KeyValues): Promise<number> {
  const url = values['database-url'] ?? process.env[DATABASE_URL_ENV]
  if (action === 'usage' && !url) throw usageError('keys usage needs --database-url (or SVC_TTS_DATABASE_URL): usage is recorded in the shared database')
  const database = url ? await SharedDatabase.connect(url) : undefined
  try {
    if (action === 'usage') return await printUsage(database!, values.hours)
    const store = database ? await databaseKeys(database) : await KeyStore.load(values['data-dir'] ?? defaultDataDir())
    return await run(store, action, argument, values)
  } finally {
    await database?.close()
  }
}

async function printUsage(database: SharedDatabase, hours = '24'): Promise<number> {
  const span = Number(hours)
  if (!(span > 0)) throw usageError('--hours must be a number of hours above 0')
  const keys = new Map((await databaseKeys(database)).list().map((key) => [key.id, key.name]))
  for (const use of await new PostgresUsage(database).since(new Date(Date.now() - span * 3_600_000))) {
    process.stdout.write(`${use.key_id}  ${keys.get(use.key_id) ?? '(revoked)'}  requests=${use.requests}  characters=${use.characters}\n`)
  }
  return 0
}

async function run(store: KeyStore, action: string | undefined, argument: string | undefined, values: KeyValues): Promise<number> {
  if (action === 'create') {
    const limits = values.limits === undefined ? undefined : numberPairs('--limits', values.limits, keyLimitsSchema)
    const { key, record } = await store.create(values.name ?? 'key', parseScopes(values.scopes), limits)
    process.stdout.write(`${key}\n`)
    process.stderr.write(`created key ${record.id} (${record.scopes.join(', ')}${limits ? `; limits ${limitsText(limits)}` : ''}); it is shown only this once\n`)
    return 0
  }
  if (action === 'list') {
    for (const key of store.list()) process.stdout.write(`${key.id}  ${key.name}  ${key.scopes.join(',')}  ${key.created_at}  limits=${limitsText(key.limits)}\n`)
    return 0
  }
  if (action === 'limits' && argument && values.limits !== undefined) {
    const limits = values.limits === 'none' ? undefined : numberPairs('--limits', values.limits, keyLimitsSchema)
    if (await store.setLimits(argument, limits)) return 0
    process.stderr.write(`no key has id '${argument}'\n`)
    return 1
  }
  if (action === 'revoke' && argument) {
    if (await store.revoke(argument)) return 0
    process.stderr.write(`no key has id '${argument}'\n`)
    return 1
  }
  process.stderr.write(USAGE)
  return 1
}
