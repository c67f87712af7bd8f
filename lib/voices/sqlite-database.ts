/**
 * The voice library's SQLite file, opened so that the server never stalls or fails on it:
 * - it is readable by its owner only (it holds people's recordings);
 * - another process holding its write lock is waited for off the event loop (busy_timeout is 0 once
 *   the file is open: SQLite's own wait would block the event loop), up to a deadline, then
 *   VOICE_LIBRARY_BUSY;
 * - a full disk is STORAGE_FULL, and a reserve file set aside at open is given up so that a delete,
 *   the way to make room, still goes through;
 * - a file that cannot be opened for writing (a full disk after a crash, a read-only mount) opens
 *   read-only: the voices speak, writes are VOICE_LIBRARY_READ_ONLY.
 */
import { chmodSync, closeSync, existsSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'
import { TtsError } from '../errors.js'

/** Each entry moves the schema one version up; PRAGMA user_version records how far a database is. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE voices (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- list order; never reused, so cursors stay valid
     voice_id TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     description TEXT NOT NULL,
     language TEXT NOT NULL,
     gender TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     rendering TEXT NOT NULL,  -- JSON VoiceRendering
     analysis TEXT NOT NULL    -- JSON VoiceAnalysis
   );
   CREATE TABLE voice_samples (
     voice_id TEXT PRIMARY KEY REFERENCES voices(voice_id) ON DELETE CASCADE,
     media_type TEXT NOT NULL,
     audio BLOB NOT NULL
   );`,
  // A deleted voice keeps its place in the list order, so a cursor naming it stays valid.
  `CREATE TABLE deleted_voices (
     voice_id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL
   );`,
  // Who made a voice (an API key's id), for per-key quotas.
  `ALTER TABLE voices ADD COLUMN owner TEXT;
   CREATE INDEX voices_by_owner ON voices(owner);`,
  // Pronunciation dictionaries: every version kept, so a request may name an older one.
  `CREATE TABLE dictionaries (
     dictionary_id TEXT NOT NULL,
     version INTEGER NOT NULL,
     name TEXT NOT NULL,
     rules TEXT NOT NULL,  -- JSON DictionaryRule[]
     created_at TEXT NOT NULL,
     PRIMARY KEY (dictionary_id, version)
   );`,
]

/** How long a write waits for another process's lock before VOICE_LIBRARY_BUSY. */
const BUSY_DEADLINE_MS = 5000
/** Space set aside beside the database, given up on a full disk so that deletes go through. */
const RESERVE_BYTES = 4 * 1024 * 1024

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** What a synchronous pause at open waits on; made on first use (a startup snapshot has no SharedArrayBuffer). */
let pause: Int32Array | undefined

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(error) ?? '')
const isFull = (error: unknown) => sqliteCode(error) === 'SQLITE_FULL' || (error as NodeJS.ErrnoException | null)?.code === 'ENOSPC'
const cannotWrite = (error: unknown) => /^SQLITE_(FULL|READONLY|CANTOPEN|IOERR)/.test(sqliteCode(error) ?? '') || isFull(error)

/** The library's error for what SQLite or the file system said; anything unforeseen stays as it is. */
function storageError(error: unknown): unknown {
  if (error instanceof TtsError) return error
  if (isFull(error)) return new TtsError('STORAGE_FULL', 'the disk that holds the voice library is full: delete voices or free space', { cause: error })
  if (isBusy(error)) return new TtsError('VOICE_LIBRARY_BUSY', `another process held the voice library's lock for over ${BUSY_DEADLINE_MS} ms`, { cause: error })
  if (/^SQLITE_READONLY/.test(sqliteCode(error) ?? '')) return new TtsError('VOICE_LIBRARY_READ_ONLY', 'the voice library is read-only', { cause: error })
  return error
}

// Loaded when a library is first opened, not at every program's start-up.
const require = createRequire(import.meta.url)
let Sqlite: typeof Database | undefined

function openDatabase(file: string, readonly: boolean): Database.Database {
  try {
    Sqlite ??= require('better-sqlite3') as typeof Database
    return new Sqlite(file, { readonly, fileMustExist: readonly })
  } catch (cause) {
    if (!/bindings file|better_sqlite3\.node/.test(String(cause))) throw cause
    throw new TtsError('VOICE_LIBRARY_UNAVAILABLE', "the voice library needs better-sqlite3's native binary, which is missing (was it installed with --ignore-scripts?): run `npm rebuild better-sqlite3`", { cause })
  }
}

/** Creates the file readable by its owner only (SQLite gives its journal files the same mode), or tightens an existing one. */
function ownerOnly(file: string): void {
  if (existsSync(file)) {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  } else {
    closeSync(openSync(file, 'a', 0o600))
  }
}

export class VoiceDatabase {
  readonly db: Database.Database
  /** Why the library opened read-only, when it did. */
  readonly readOnlyBecause: string | undefined
  private readonly reserve: string | undefined

  /** `file`: a path, or ':memory:'. */
  constructor(file: string) {
    if (file === ':memory:') {
      this.db = this.configure(openDatabase(file, false))
      this.readOnlyBecause = undefined
      return
    }
    let db: Database.Database
    let readOnlyBecause: string | undefined
    try {
      ownerOnly(file)
      db = this.configure(openDatabase(file, false))
    } catch (error) {
      if (!cannotWrite(error) || !existsSync(file)) throw storageError(error)
      readOnlyBecause = error instanceof Error ? error.message : String(error)
      db = openDatabase(file, true)
    }
    this.db = db
    this.readOnlyBecause = readOnlyBecause
    this.reserve = readOnlyBecause === undefined ? `${file}.reserve` : undefined
    this.keepReserve()
  }

  /** Runs a read; a lock another process holds is waited for off the event loop. */
  async read<T>(operation: () => T): Promise<T> {
    try {
      return await this.withRetries(operation)
    } catch (error) {
      throw storageError(error)
    }
  }

  /** Runs a write in an IMMEDIATE transaction, with the same waits; on a full disk, the reserve is given up once. */
  async write<T>(operation: () => T, { freesSpace = false } = {}): Promise<T> {
    if (this.readOnlyBecause !== undefined) {
      throw new TtsError('VOICE_LIBRARY_READ_ONLY', `the voice library opened read-only (${this.readOnlyBecause}): voices speak, but cannot be created, changed or deleted`)
    }
    const transaction = this.db.transaction(operation)
    try {
      return await this.withRetries(() => transaction.immediate())
    } catch (error) {
      if (!freesSpace || !isFull(error) || !this.giveUpReserve()) throw storageError(error)
      return this.withRetries(() => transaction.immediate()).catch((again: unknown) => {
        throw storageError(again)
      })
    }
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  /**
   * Only a file being created or migrated takes a lock here (once per file and schema version): two
   * processes starting on one new data directory wait for each other, briefly and at open, instead
   * of failing. SQLite's busy handler covers most of those waits; the switch to WAL can still be
   * refused at once (SQLite's guard against two connections each waiting for the other), so the
   * whole setup is tried again.
   */
  private configure(db: Database.Database): Database.Database {
    const deadline = performance.now() + BUSY_DEADLINE_MS
    db.pragma(`busy_timeout = ${BUSY_DEADLINE_MS}`)
    for (;;) {
      try {
        this.setUp(db)
        break
      } catch (error) {
        if (!isBusy(error) || performance.now() > deadline) throw error
      }
      Atomics.wait((pause ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 5 + Math.random() * 20)
    }
    db.pragma('busy_timeout = 0')
    return db
  }

  private setUp(db: Database.Database): void {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')  // an acknowledged voice survives a crash or power loss
    db.pragma('foreign_keys = ON')
    const version = db.pragma('user_version', { simple: true }) as number
    if (version > MIGRATIONS.length) {
      throw new Error(`voice database schema version ${version} is newer than this svc-tts (${MIGRATIONS.length})`)
    }
    if (version < MIGRATIONS.length) {
      db.transaction(() => {
        const current = db.pragma('user_version', { simple: true }) as number  // another process may have migrated meanwhile
        for (let v = current; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!)
        db.pragma(`user_version = ${MIGRATIONS.length}`)
      }).immediate()
    }
  }

  private async withRetries<T>(operation: () => T): Promise<T> {
    const deadline = performance.now() + BUSY_DEADLINE_MS
    for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
      try {
        return operation()
      } catch (error) {
        if (!isBusy(error) || performance.now() > deadline) throw error
      }
      await sleep(wait)
    }
  }

  /** Sets the reserve aside if it is missing and the disk has room; a disk without room goes without. */
  private keepReserve(): void {
    if (!this.reserve || existsSync(this.reserve)) return
    let fd: number | undefined
    try {
      fd = openSync(this.reserve, 'w', 0o600)
      writeSync(fd, Buffer.alloc(RESERVE_BYTES))
    } catch {
      rmSync(this.reserve, { force: true })
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  private giveUpReserve(): boolean {
    if (!this.reserve || !existsSync(this.reserve)) return false
    rmSync(this.reserve, { force: true })
    return true
  }
}
