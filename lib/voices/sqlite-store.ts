/**
 * The durable voice library: cloned voices in an embedded SQLite database (one transaction per
 * change; the file's opening, locks and full disks are lib/voices/sqlite-database.ts's), the
 * predefined voices in memory, read-only, listed first.
 */
import { randomUUID } from 'node:crypto'
import { listVoices } from './paging.js'
import { PREDEFINED_VOICES } from './predefined.js'
import { readOnly, voiceFromRow, type VoiceRow } from './voice-rows.js'
import { checkQuota } from './quota.js'
import { VoiceDatabase } from './sqlite-database.js'
import type {
  ListVoicesOptions,
  NewVoice,
  StoredVoice,
  VoicePage,
  VoicePatch,
  VoiceQuota,
  VoiceSample,
  VoiceStore,
  VoiceUsage,
} from './types.js'

interface Row extends VoiceRow {
  seq: number
}

export class SqliteVoiceStore implements VoiceStore {
  private opened: VoiceDatabase | undefined
  private readonly predefined = new Map(PREDEFINED_VOICES.map((v) => [v.record.voice_id, v]))

  /**
   * `file` is a path, or ':memory:' for a library that lives as long as the store. A file opens at
   * once, so a bad path fails at start; an in-memory library opens with its first cloned voice, so
   * the predefined voices speak even where better-sqlite3's native binary is missing (an install
   * with --ignore-scripts skips the script that fetches it).
   */
  constructor(private readonly file: string) {
    if (file !== ':memory:') this.opened = new VoiceDatabase(file)
  }

  /** Why the library opened read-only (a full disk, a read-only mount), when it did. */
  get readOnlyBecause(): string | undefined {
    return this.opened?.readOnlyBecause
  }

  /** The database, opened on first use. */
  private get database(): VoiceDatabase {
    this.opened ??= new VoiceDatabase(this.file)
    return this.opened
  }

  /** The database where it may hold cloned voices: an in-memory library nothing was written to holds none. */
  private get stored(): VoiceDatabase | undefined {
    return this.file === ':memory:' ? this.opened : this.database
  }

  list(options: ListVoicesOptions = {}): Promise<VoicePage> {
    const stored = this.stored
    return listVoices<number>(options, stored && {
      seqOf: (voiceId) => stored.read(() => (stored.db
        .prepare('SELECT seq FROM voices WHERE voice_id = @voiceId UNION ALL SELECT seq FROM deleted_voices WHERE voice_id = @voiceId')
        .get({ voiceId }) as { seq: number } | undefined)?.seq),
      after: (after, { language, gender }, count) => stored.read(() => (stored.db
        .prepare(
          `SELECT * FROM voices WHERE seq > @seq
             AND (@language IS NULL OR language = @language) AND (@gender IS NULL OR gender = @gender)
           ORDER BY seq LIMIT @limit`,
        )
        .all({ seq: after ?? 0, language: language ?? null, gender: gender ?? null, limit: count }) as Row[]).map(voiceFromRow)),
    })
  }

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) return predefined
    const stored = this.stored
    const row = await stored?.read(() => stored.db.prepare('SELECT * FROM voices WHERE voice_id = ?').get(voiceId) as Row | undefined)
    return row && voiceFromRow(row)
  }

  async getMany(voiceIds: readonly string[]): Promise<StoredVoice[]> {
    const found: StoredVoice[] = []
    for (const id of voiceIds) {
      const voice = await this.get(id)
      if (voice) found.push(voice)
    }
    return found
  }

  /** With `quota`, the voice is refused (VOICE_QUOTA_EXCEEDED) when its owner would pass it, in the same transaction. */
  async create(voice: NewVoice, quota?: VoiceQuota): Promise<StoredVoice> {
    const now = new Date().toISOString()
    const voiceId = randomUUID()
    const { db } = this.database
    await this.database.write(() => {
      if (quota && voice.owner !== undefined) checkQuota(this.usageOf(voice.owner), voice.sample.audio.length, quota)
      db.prepare(
        `INSERT INTO voices (voice_id, name, description, language, gender, created_at, updated_at, rendering, analysis, owner)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(voiceId, voice.name, voice.description, voice.language, voice.gender, now, now,
        JSON.stringify(voice.rendering), JSON.stringify(voice.analysis), voice.owner ?? null)
      db.prepare('INSERT INTO voice_samples (voice_id, media_type, audio) VALUES (?, ?, ?)').run(voiceId, voice.sample.mediaType, voice.sample.audio)
    })
    return (await this.get(voiceId))!
  }

  async usage(owner: string): Promise<VoiceUsage> {
    const stored = this.stored
    return (await stored?.read(() => this.usageOf(owner))) ?? { voices: 0, sampleBytes: 0 }
  }

  async update(voiceId: string, patch: VoicePatch): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    const stored = this.stored
    const changes = await stored?.write(() => stored.db
      .prepare(
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
      }).changes, { freesSpace: true })
    return !changes ? undefined : this.get(voiceId)
  }

  async delete(voiceId: string): Promise<boolean> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    const stored = this.stored
    if (!stored) return false
    return stored.write(() => {
      stored.db.prepare('INSERT OR REPLACE INTO deleted_voices (voice_id, seq) SELECT voice_id, seq FROM voices WHERE voice_id = ?').run(voiceId)
      return stored.db.prepare('DELETE FROM voices WHERE voice_id = ?').run(voiceId).changes > 0
    }, { freesSpace: true })
  }

  async sample(voiceId: string): Promise<VoiceSample | undefined> {
    const stored = this.stored
    const row = await stored?.read(() => stored.db.prepare('SELECT media_type, audio FROM voice_samples WHERE voice_id = ?').get(voiceId) as
      | { media_type: string; audio: Buffer }
      | undefined)
    return row && { audio: row.audio, mediaType: row.media_type }
  }

  async close(): Promise<void> {
    this.opened?.close()
  }

  private usageOf(owner: string): VoiceUsage {
    const row = this.database.db
      .prepare('SELECT count(*) AS voices, coalesce(sum(length(s.audio)), 0) AS sampleBytes FROM voices v JOIN voice_samples s USING (voice_id) WHERE v.owner = ?')
      .get(owner) as VoiceUsage
    return { voices: row.voices, sampleBytes: row.sampleBytes }
  }
}
