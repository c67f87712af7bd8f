/**
 * One PostgreSQL database that replicas share: a connection pool; the schema brought up to date
 * at start under a transaction-scoped advisory lock, so replicas starting at once apply each step
 * once; and change notifications (LISTEN/NOTIFY) for what replicas keep in memory. The listening
 * connection reconnects when it is lost, and then announces every topic as changed, since
 * notifications sent meanwhile were missed. A database that cannot be reached is
 * STORE_UNAVAILABLE (503), never a crash: requests fail while it is gone and succeed once it is back.
 */
import { EventEmitter } from 'node:events'
import type { Client, Pool, PoolClient, QueryResultRow } from 'pg'
import { TtsError } from '../errors.js'
import { MIGRATIONS } from './migrations.js'

/** The channel replicas tell each other of changes on; the payload is the topic. */
const CHANNEL = 'svc_tts_changes'
/** Any number, the same in every replica: the lock that serialises migrations. */
const MIGRATION_LOCK = 727_270_001
/** What a listener hears after a reconnection: everything may have changed. */
export const EVERY_TOPIC = '*'
const RECONNECT_MS = [100, 250, 500, 1000, 2000]

async function loadPg(): Promise<typeof import('pg')> {
  try {
    return (await import('pg')).default as unknown as typeof import('pg')
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw cause
    throw new TtsError('MISSING_DEPENDENCY', 'a PostgreSQL database needs the pg package: npm install pg', { cause })
  }
}

/** pg's failures to reach the server as STORE_UNAVAILABLE; anything else (a bug, a constraint) as it is. */
export function storeError(error: unknown): unknown {
  if (error instanceof TtsError) return error
  const code = (error as { code?: unknown } | null)?.code
  const unreachable = typeof code === 'string' && (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH)$/.test(code) || /^(57P0[1-3]|08\d\d\d|53300)$/.test(code))
  if (unreachable || /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(String((error as Error)?.message))) {
    return new TtsError('STORE_UNAVAILABLE', 'the shared database cannot be reached', { cause: error })
  }
  return error
}

export class SharedDatabase extends EventEmitter<{ change: [topic: string] }> {
  private listener: Client | undefined
  private closed = false
  private reconnects = 0

  private constructor(
    private readonly pg: typeof import('pg'),
    private readonly pool: Pool,
    private readonly url: string,
  ) {
    super()
    // A connection lost while idle in the pool is dropped by pg; without a listener it would crash the process.
    pool.on('error', () => {})
  }

  /** Connects, brings the schema up to date, and starts listening for changes. */
  static async connect(url: string): Promise<SharedDatabase> {
    const pg = await loadPg()
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000 })
    const database = new SharedDatabase(pg, pool, url)
    try {
      await database.migrate()
      await database.listen()
    } catch (error) {
      await database.close()
      throw storeError(error)
    }
    return database
  }

  async query<Row extends QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    try {
      return (await this.pool.query<Row>(text, values)).rows
    } catch (error) {
      throw storeError(error)
    }
  }

  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw storeError(error)
    }
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw storeError(error)
    } finally {
      client.release()
    }
  }

  /** Tells every replica (this one included) that `topic` changed. */
  async notify(topic: string, client?: PoolClient): Promise<void> {
    const run = client ? (text: string, values: unknown[]) => client.query(text, values) : (text: string, values: unknown[]) => this.query(text, values)
    await run('SELECT pg_notify($1, $2)', [CHANNEL, topic])
  }

  async close(): Promise<void> {
    this.closed = true
    const listener = this.listener
    this.listener = undefined
    await listener?.end().catch(() => {})
    await this.pool.end().catch(() => {})
  }

  private async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
      await client.query('CREATE TABLE IF NOT EXISTS svc_tts_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())')
      const [row] = (await client.query<{ version: number | null }>('SELECT max(version) AS version FROM svc_tts_migrations')).rows
      const done = row?.version ?? 0
      if (done > MIGRATIONS.length) throw new TtsError('STORE_UNAVAILABLE', `the database's schema (version ${done}) is newer than this svc-tts knows (${MIGRATIONS.length}): upgrade svc-tts`)
      for (let version = done + 1; version <= MIGRATIONS.length; version++) {
        await client.query(MIGRATIONS[version - 1]!)
        await client.query('INSERT INTO svc_tts_migrations (version) VALUES ($1)', [version])
      }
    })
  }

  private async listen(): Promise<void> {
    const client = new this.pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 })
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) this.emit('change', message.payload)
    })
    client.on('error', () => this.relisten(client))
    client.on('end', () => this.relisten(client))
    await client.connect()
    await client.query(`LISTEN ${CHANNEL}`)
    this.listener = client
    this.reconnects = 0
  }

  private relisten(lost: Client): void {
    if (this.closed || this.listener !== lost) return
    this.listener = undefined
    const retry = () => {
      if (this.closed) return
      this.listen().then(
        () => this.emit('change', EVERY_TOPIC),
        () => setTimeout(retry, RECONNECT_MS[Math.min(this.reconnects++, RECONNECT_MS.length - 1)]).unref(),
      )
    }
    retry()
  }
}
