/**
 * API keys kept in the database replicas share: each replica holds them in memory (a request's
 * check never waits on the database) and reads them again when any replica announces a change,
 * so a key revoked through one replica is refused by every other within the notification's
 * delay (milliseconds on a healthy database). While the database is unreachable, each replica
 * keeps checking against the keys it last read, and creating or revoking one fails with
 * STORE_UNAVAILABLE.
 */
import { EVERY_TOPIC, type SharedDatabase } from '../postgres/database.js'
import { KeyStore, type KeyPersistence, type Scope, type StoredKey } from './keys.js'
import type { KeyLimits } from './limits.js'

const TOPIC = 'keys'

interface KeyRow {
  id: string
  name: string
  hash: string
  scopes: string[]
  created_at: string
  limits: KeyLimits | null
}

export class PostgresKeys implements KeyPersistence {
  constructor(private readonly database: SharedDatabase) {}

  async load(): Promise<StoredKey[]> {
    const rows = await this.database.query<KeyRow>('SELECT id, name, hash, scopes, created_at, limits FROM api_keys ORDER BY created_at, id')
    return rows.map(({ limits, ...row }) => ({ ...row, scopes: row.scopes as Scope[], ...(limits && { limits }) }))
  }

  async add(key: StoredKey): Promise<void> {
    await this.database.transaction(async (client) => {
      await client.query('INSERT INTO api_keys (id, name, hash, scopes, created_at, limits) VALUES ($1, $2, $3, $4, $5, $6)', [key.id, key.name, key.hash, key.scopes, key.created_at, key.limits ?? null])
      await this.database.notify(TOPIC, client)
    })
  }

  async update(key: StoredKey): Promise<void> {
    await this.database.transaction(async (client) => {
      await client.query('UPDATE api_keys SET limits = $2 WHERE id = $1', [key.id, key.limits ?? null])
      await this.database.notify(TOPIC, client)
    })
  }

  async remove(id: string): Promise<void> {
    await this.database.transaction(async (client) => {
      await client.query('DELETE FROM api_keys WHERE id = $1', [id])
      await this.database.notify(TOPIC, client)
    })
  }
}

/** The keys of `database`, read again whenever a replica changes them (or the notifications were lost and are back). */
export async function databaseKeys(database: SharedDatabase): Promise<KeyStore> {
  const store = await KeyStore.open(new PostgresKeys(database))
  database.on('change', (topic) => {
    // A failed read keeps the keys last read: the database is down, and its return announces every topic.
    if (topic === TOPIC || topic === EVERY_TOPIC) void store.reload().catch(() => {})
  })
  return store
}
