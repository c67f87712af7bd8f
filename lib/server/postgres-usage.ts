/**
 * Every key's usage, by hour, in the database replicas share. A request's use is added to what is
 * pending and written at once in one statement with whatever else is pending (one write in flight
 * at a time, so under load many requests share a write), and the request goes on once it is
 * written: what a client was answered is counted, even if the replica is killed the next instant.
 * A write that fails (the database is away), or takes over a second, keeps its counts pending, lets
 * its requests go on, and is tried again; close() writes what is left.
 */
import type { SharedDatabase } from '../postgres/database.js'
import type { UsageLedger } from './usage.js'

const RETRY_MS = 1000
/** How long a request waits for its use to be written before it goes on regardless (its use stays pending). */
const MAX_WAIT_MS = 1000

interface Pending {
  keyId: string
  hour: string
  requests: number
  characters: number
}

/** A use waiting for the write that holds it. */
type Waiter = () => void

export interface KeyUsage {
  key_id: string
  requests: number
  characters: number
}

function hourOf(now: number): string {
  return new Date(now - (now % 3_600_000)).toISOString()
}

export class PostgresUsage implements UsageLedger {
  private pending = new Map<string, Pending>()
  private waiters: Waiter[] = []
  private writing: Promise<void> | undefined
  private retry: NodeJS.Timeout | undefined
  private failing = false

  constructor(
    private readonly database: SharedDatabase,
    private readonly onWarning: (message: string) => void = () => {},
  ) {}

  record(keyId: string, { requests = 0, characters = 0 }: { requests?: number; characters?: number }): Promise<void> {
    this.add({ keyId, hour: hourOf(Date.now()), requests, characters })
    const written = new Promise<void>((resolve) => {
      this.waiters.push(resolve)
      // A database that stopped answering (no error yet) holds no request longer than this.
      setTimeout(resolve, MAX_WAIT_MS).unref()
    })
    if (this.failing) this.release()  // kept for later: the request need not wait for the database's return
    if (!this.writing && !this.retry) this.writing = this.drain()
    return written
  }

  /** Each key's use since `since` (every hour from the one it falls in). */
  async since(since: Date): Promise<KeyUsage[]> {
    const rows = await this.database.query<{ key_id: string; requests: string; characters: string }>(
      'SELECT key_id, sum(requests) AS requests, sum(characters) AS characters FROM key_usage WHERE hour >= $1 GROUP BY key_id ORDER BY key_id',
      [hourOf(since.getTime())],
    )
    return rows.map((row) => ({ key_id: row.key_id, requests: Number(row.requests), characters: Number(row.characters) }))
  }

  /** Writes what is pending (once more, past a failure); what still fails to be written is said, not thrown. */
  async close(): Promise<void> {
    clearTimeout(this.retry)
    this.retry = undefined
    while (this.writing) await this.writing
    if (this.pending.size > 0) await this.writeOnce()
    if (this.pending.size > 0) this.onWarning(`the usage of ${this.pending.size} key-hours could not be written: the shared database cannot be reached`)
  }

  private add(use: Pending): void {
    const name = `${use.keyId}\n${use.hour}`
    const held = this.pending.get(name)
    if (held) {
      held.requests += use.requests
      held.characters += use.characters
    } else {
      this.pending.set(name, { ...use })
    }
  }

  /** Writes until nothing is pending; after a failure, tries again a little later. */
  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      if (await this.writeOnce()) continue
      this.retry = setTimeout(() => {
        this.retry = undefined
        this.writing = this.drain()
      }, RETRY_MS)
      this.retry.unref()
      break
    }
    this.writing = undefined
  }

  private release(): void {
    for (const resolve of this.waiters.splice(0)) resolve()
  }

  /** One statement with everything pending; false (the counts pending again) when it failed. Either way, the uses it held go on. */
  private async writeOnce(): Promise<boolean> {
    const batch = [...this.pending.values()]
    const waiting = this.waiters.splice(0)
    this.pending = new Map()
    try {
      await this.database.query(
        `INSERT INTO key_usage (key_id, hour, requests, characters)
           SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::bigint[])
         ON CONFLICT (key_id, hour) DO UPDATE
           SET requests = key_usage.requests + EXCLUDED.requests, characters = key_usage.characters + EXCLUDED.characters`,
        [batch.map((use) => use.keyId), batch.map((use) => use.hour), batch.map((use) => use.requests), batch.map((use) => use.characters)],
      )
    } catch {
      for (const use of batch) this.add(use)
      if (!this.failing) this.onWarning('usage cannot be written to the shared database: it is kept, and written when the database is back')
      this.failing = true
      return false
    } finally {
      for (const resolve of waiting) resolve()
    }
    if (this.failing) this.onWarning('the usage kept while the shared database was away is written')
    this.failing = false
    return true
  }
}
