/**
 * The voice library in a PostgreSQL database that replicas share: cloned voices and their samples
 * in tables, read at each use (so a voice changed or deleted through one replica is seen by every
 * other at its next request), the predefined voices in memory, read-only, listed first, as the
 * SQLite store does. A quota is checked in the transaction that adds the voice, under a lock per
 * owner, so that two replicas cannot both let an owner pass it.
 */
import { randomUUID } from 'node:crypto'
import type { PoolClient } from 'pg'
import type { SharedDatabase } from '../postgres/database.js'
import { PREDEFINED_VOICES } from './predefined.js'
import { readOnly, voiceFromRow, type VoiceRow } from './voice-rows.js'
import { checkQuota } from './quota.js'
import { listVoices } from './paging.js'
import type { ListVoicesOptions, NewVoice, StoredVoice, VoicePage, VoicePatch, VoiceQuota, VoiceSample, VoiceStore, VoiceUsage } from './types.js'

interface Row extends VoiceRow {
  seq: string
}

/** The lock that serialises an owner's new voices across replicas (the quota check and the insert). */
const OWNER_LOCK = 'svc_tts_voice_owner:'

export class PostgresVoiceStore implements VoiceStore {
  private readonly predefined = new Map(PREDEFINED_VOICES.map((v) => [v.record.voice_id, v]))

  /** `database` stays its owner's to close. */
  constructor(private readonly database: SharedDatabase) {}

  list(options: ListVoicesOptions = {}): Promise<VoicePage> {
    return listVoices<string>(options, {
      seqOf: async (voiceId) => (await this.database.query<{ seq: string }>('SELECT seq FROM voices WHERE voice_id = $1 UNION ALL SELECT seq FROM deleted_voices WHERE voice_id = $1', [voiceId]))[0]?.seq,
      after: async (after, { language, gender }, count) => (await this.database.query<Row>(
        `SELECT * FROM voices WHERE seq > $1 AND ($2::text IS NULL OR language = $2) AND ($3::text IS NULL OR gender = $3)
         ORDER BY seq LIMIT $4`,
        [after ?? '0', language ?? null, gender ?? null, count],
      )).map(voiceFromRow),
    })
  }

  async get(voiceId: string): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) return predefined
    const [row] = await this.database.query<Row>('SELECT * FROM voices WHERE voice_id = $1', [voiceId])
    return row && voiceFromRow(row)
  }

  async getMany(voiceIds: readonly string[]): Promise<StoredVoice[]> {
    const stored = new Map(
      (await this.database.query<Row>('SELECT * FROM voices WHERE voice_id = ANY($1::text[])', [voiceIds.filter((id) => !this.predefined.has(id))])).map((row) => [row.voice_id, voiceFromRow(row)]),
    )
    return voiceIds.flatMap((id) => {
      const voice = this.predefined.get(id) ?? stored.get(id)
      return voice ? [voice] : []
    })
  }

  async create(voice: NewVoice, quota?: VoiceQuota): Promise<StoredVoice> {
    const now = new Date().toISOString()
    const voiceId = randomUUID()
    await this.database.transaction(async (client) => {
      if (quota && voice.owner !== undefined) {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [OWNER_LOCK + voice.owner])
        checkQuota(await this.usageOf(client, voice.owner), voice.sample.audio.length, quota)
      }
      await client.query(
        `INSERT INTO voices (voice_id, name, description, language, gender, created_at, updated_at, rendering, analysis, owner)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [voiceId, voice.name, voice.description, voice.language, voice.gender, now, now, JSON.stringify(voice.rendering), JSON.stringify(voice.analysis), voice.owner ?? null],
      )
      await client.query('INSERT INTO voice_samples (voice_id, media_type, audio) VALUES ($1, $2, $3)', [voiceId, voice.sample.mediaType, voice.sample.audio])
    })
    return (await this.get(voiceId))!
  }

  async usage(owner: string): Promise<VoiceUsage> {
    return this.database.transaction((client) => this.usageOf(client, owner))
  }

  async update(voiceId: string, patch: VoicePatch): Promise<StoredVoice | undefined> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    const rows = await this.database.query<Row>(
      `UPDATE voices SET name = coalesce($2, name), description = coalesce($3, description),
         language = coalesce($4, language), gender = coalesce($5, gender), updated_at = $6
       WHERE voice_id = $1 RETURNING *`,
      [voiceId, patch.name ?? null, patch.description ?? null, patch.language ?? null, patch.gender ?? null, new Date().toISOString()],
    )
    return rows[0] && voiceFromRow(rows[0])
  }

  async delete(voiceId: string): Promise<boolean> {
    const predefined = this.predefined.get(voiceId)
    if (predefined) throw readOnly(predefined)
    return this.database.transaction(async (client) => {
      await client.query('INSERT INTO deleted_voices (voice_id, seq) SELECT voice_id, seq FROM voices WHERE voice_id = $1 ON CONFLICT (voice_id) DO UPDATE SET seq = EXCLUDED.seq', [voiceId])
      return ((await client.query('DELETE FROM voices WHERE voice_id = $1', [voiceId])).rowCount ?? 0) > 0
    })
  }

  async sample(voiceId: string): Promise<VoiceSample | undefined> {
    const [row] = await this.database.query<{ media_type: string; audio: Buffer }>('SELECT media_type, audio FROM voice_samples WHERE voice_id = $1', [voiceId])
    return row && { audio: row.audio, mediaType: row.media_type }
  }

  async close(): Promise<void> {}

  private async usageOf(client: PoolClient, owner: string): Promise<VoiceUsage> {
    const [row] = (await client.query<{ voices: string; sample_bytes: string }>(
      'SELECT count(*) AS voices, coalesce(sum(octet_length(s.audio)), 0) AS sample_bytes FROM voices v JOIN voice_samples s USING (voice_id) WHERE v.owner = $1',
      [owner],
    )).rows
    return { voices: Number(row!.voices), sampleBytes: Number(row!.sample_bytes) }
  }
}
