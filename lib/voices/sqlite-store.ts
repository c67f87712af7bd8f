/**
 * The durable voice library: cloned voices in an embedded SQLite database (WAL, one transaction
 * per change, versioned migrations), the predefined voices in memory, read-only, listed first.
 */
import { randomUUID } from 'node:crypto'
import Database from 'better-sqlite3'
import { TtsError } from '../errors.js'
import type { Language } from '../text/types.js'
import { PREDEFINED_VOICES } from './predefined.js'
import type {
  ListVoicesOptions,
  NewVoice,
  StoredVoice,
  VoicePage,
  VoicePatch,
  VoiceSample,
  VoiceStore,
} from './types.js'

export const DEFAULT_LIST_LIMIT = 20

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
]

interface VoiceRow {
  seq: number
  voice_id: string
  name: string
  description: string
  language: string
  gender: string
  created_at: string
  updated_at: string
  rendering: string
  analysis: string
}

/** Where a page ends: an index into the predefined voices, or the seq of a cloned voice. */
type Position = { predefined: number } | { seq: number }

function fromRow(row: VoiceRow): StoredVoice {
  return {
    record: {
      voice_id: row.voice_id,
      voice_type: 'CUSTOM',
      name: row.name,
      description: row.description,
      created_at: row.created_at,
      updated_at: row.updated_at,
      language: row.language as Language,
      gender: row.gender as 'Male' | 'Female',
    },
    rendering: JSON.parse(row.rendering) as StoredVoice['rendering'],
    analysis: JSON.parse(row.analysis) as StoredVoice['analysis'],
  }
}

function readOnly(voice: StoredVoice): TtsError {
  return new TtsError('VOICE_READ_ONLY', `voice '${voice.record.name}' is predefined: it cannot be changed or deleted`)
}

export class SqliteVoiceStore implements VoiceStore {
  private opened: Database.Database | undefined
  private readonly predefined = new Map(PREDEFINED_VOICES.map((v) => [v.record.voice_id, v]))

  /**
   * `file` is a path, or ':memory:' for a library that lives as long as the store. A file opens at
   * once, so a bad path fails at start; an in-memory library opens with its first cloned voice, so
   * the predefined voices speak even where better-sqlite3's native binary is missing (an install
   * with --ignore-scripts skips the script that fetches it).
   */
  constructor(private readonly file: string) {
    if (file !== ':memory:') this.open()
  }

  /** The database, opened on first use. */
  private get db(): Database.Database {
    return this.opened ?? this.open()
  }

  /** The database where it may hold cloned voices: an in-memory library nothing was written to holds none. */
  private get stored(): Database.Database | undefined {
    return this.file === ':memory:' ? this.opened : this.db
  }

  private open(): Database.Database {
    let db: Database.Database
    try {
      db = new Database(this.file)
    } catch (cause) {
      if (!/bindings file|better_sqlite3\.node/.test(String(cause))) throw cause
      throw new TtsError('VOICE_LIBRARY_UNAVAILABLE', "the voice library needs better-sqlite3's native binary, which is missing (was it installed with --ignore-scripts?): run `npm rebuild better-sqlite3`", { cause })
    }
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')  // an acknowledged voice survives a crash or power loss
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    this.opened = db
    this.migrate()
    return db
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number
    if (version > MIGRATIONS.length) {
      throw new Error(`voice database schema version ${version} is newer than this svc-tts (${MIGRATIONS.length})`)
    }
    this.db.transaction(() => {
      for (let v = version; v < MIGRATIONS.length; v++) this.db.exec(MIGRATIONS[v]!)
      this.db.pragma(`user_version = ${MIGRATIONS.length}`)
    }).immediate()
  }

  async list({ limit = DEFAULT_LIST_LIMIT, cursor, language, gender, voice_type }: ListVoicesOptions = {}): Promise<VoicePage> {
    const after = cursor === undefined ? undefined : this.positionOf(cursor)
    const picked: { voice: StoredVoice; position: Position }[] = []
    // One row more than asked tells whether another page follows.
    const wanted = limit + 1

    if (voice_type !== 'CUSTOM' && (after === undefined || 'predefined' in after)) {
      const start = after === undefined ? 0 : after.predefined + 1
      for (let i = start; i < PREDEFINED_VOICES.length && picked.length < wanted; i++) {
        const voice = PREDEFINED_VOICES[i]!
        if (language !== undefined && voice.record.language !== language) continue
        if (gender !== undefined && voice.record.gender !== gender) continue
        picked.push({ voice, position: { predefined: i } })
      }
    }
    const stored = this.stored
    if (voice_type !== 'PREDEFINED' && picked.length < wanted && stored) {
      const rows = stored
        .prepare(
          `SELECT * FROM voices WHERE seq > @seq
             AND (@language IS NULL OR language = @language) AND (@gender IS NULL OR gender = @gender)
           ORDER BY seq LIMIT @limit`,
        )
        .all({
          seq: after !== undefined && 'seq' in after ? after.seq : 0,
          language: language ?? null,
          gender: gender ?? null,
          limit: wanted - picked.length,
        }) as VoiceRow[]
      for (const row of rows) picked.push({ voice: fromRow(row), position: { seq: row.seq } })
    }

    const page = picked.slice(0, limit)
    const more = picked.length > limit
    // The SPEC's next_cursor is the id of the page's last voice.
    return { voices: page.map((p) => p.voice.record), next_cursor: more ? page[page.length - 1]!.voice.record.voice_id : null }
  }

  /** Where the voice a cursor names stands in the list, also once it is deleted. */
  private positionOf(cursor: string): Position {
    const index = PREDEFINED_VOICES.findIndex((v) => v.record.voice_id === cursor)
    if (index >= 0) return { predefined: index }
    const row = this.stored
      ?.prepare('SELECT seq FROM voices WHERE voice_id = @cursor UNION ALL SELECT seq FROM deleted_voices WHERE voice_id = @cursor')
      .get({ cursor }) as { seq: number } | undefined
    if (!row) throw new TtsError('INVALID_REQUEST', `cursor '${cursor}' is not the id of a voice this list returned`)
    return { seq: row.seq }
  }

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) return predefined
    const row = this.stored?.prepare('SELECT * FROM voices WHERE voice_id = ?').get(voiceId) as VoiceRow | undefined
    return row && fromRow(row)
  }

  async getMany(voiceIds: readonly string[]): Promise<StoredVoice[]> {
    const found: StoredVoice[] = []
    for (const id of voiceIds) {
      const voice = await this.get(id)
      if (voice) found.push(voice)
    }
    return found
  }

  async create(voice: NewVoice): Promise<StoredVoice> {
    const now = new Date().toISOString()
    const voiceId = randomUUID()
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO voices (voice_id, name, description, language, gender, created_at, updated_at, rendering, analysis)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(voiceId, voice.name, voice.description, voice.language, voice.gender, now, now,
          JSON.stringify(voice.rendering), JSON.stringify(voice.analysis))
      this.db
        .prepare('INSERT INTO voice_samples (voice_id, media_type, audio) VALUES (?, ?, ?)')
        .run(voiceId, voice.sample.mediaType, voice.sample.audio)
    }).immediate()
    return (await this.get(voiceId))!
  }

  async update(voiceId: string, patch: VoicePatch): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    const changes = this.stored
      ?.prepare(
        `UPDATE voices SET name = coalesce(@name, name), description = coalesce(@description, description),
           language = coalesce(@language, language), gender = coalesce(@gender, gender), updated_at = @now
         WHERE voice_id = @voiceId`,
      )
      .run({
        voiceId,
        name: patch.name ?? null,
        description: patch.description ?? null,
        language: patch.language ?? null,
        gender: patch.gender ?? null,
        now: new Date().toISOString(),
      }).changes
    return !changes ? undefined : this.get(voiceId)
  }

  async delete(voiceId: string): Promise<boolean> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    const stored = this.stored
    if (!stored) return false
    return stored.transaction(() => {
      stored.prepare('INSERT OR REPLACE INTO deleted_voices (voice_id, seq) SELECT voice_id, seq FROM voices WHERE voice_id = ?').run(voiceId)
      return stored.prepare('DELETE FROM voices WHERE voice_id = ?').run(voiceId).changes > 0
    }).immediate()
  }

  async sample(voiceId: string): Promise<VoiceSample | undefined> {
    const row = this.stored?.prepare('SELECT media_type, audio FROM voice_samples WHERE voice_id = ?').get(voiceId) as
      | { media_type: string; audio: Buffer }
      | undefined
    return row && { audio: row.audio, mediaType: row.media_type }
  }

  async close(): Promise<void> {
    if (this.opened?.open) this.opened.close()
  }
}
