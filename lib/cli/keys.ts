/** `svc-tts keys create|list|revoke`: the data directory's key file, or the shared database's keys. */
import { SharedDatabase } from '../postgres/database.js'
import { KeyStore, SCOPES, type Scope } from '../server/keys.js'
import { databaseKeys } from '../server/postgres-keys.js'
import { DATABASE_URL_ENV, defaultDataDir } from './data-dir.js'
import { usageError } from './exit.js'

function parseScopes(value: string | undefined): Scope[] {
  if (!value) return [...SCOPES]
  const scopes = value.split(',').map((s) => s.trim())
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw usageError(`unknown scope '${scope}' (scopes: ${SCOPES.join(', ')})`)
  }
  return scopes as Scope[]
}

export async function manageKeys(action: string | undefined, argument: string | undefined, values: { 'data-dir'?: string; 'database-url'?: string; name?: string; scopes?: string }): Promise<number> {
  const url = values['database-url'] ?? process.env[DATABASE_URL_ENV]
  const database = url ? await SharedDatabase.connect(url) : undefined
  try {
    const store = database ? await databaseKeys(database) : await KeyStore.load(values['data-dir'] ?? defaultDataDir())
    return await run(store, action, argument, values)
  } finally {
    await database?.close()
  }
}

async function run(store: KeyStore, action: string | undefined, argument: string | undefined, values: { name?: string; scopes?: string }): Promise<number> {
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
  process.stderr.write('usage: svc-tts keys create [--name N] [--scopes text_to_speech,voices,tokens,metrics] | list | revoke ID  [--data-dir DIR | --database-url URL]\n')
  return 1
}
