/**
 * The shared database's schema, one step per entry: svc_tts_migrations records how far a database
 * is. Steps are only ever appended.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE voices (
     seq BIGSERIAL PRIMARY KEY,  -- list order; never reused, so cursors stay valid
     voice_id TEXT NOT NULL UNIQUE,
     name TEXT NOT NULL,
     description TEXT NOT NULL,
     language TEXT NOT NULL,
     gender TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     rendering TEXT NOT NULL,  -- JSON VoiceRendering
     analysis TEXT NOT NULL,   -- JSON VoiceAnalysis
     owner TEXT                -- the API key's id that made it, for quotas
   );
   CREATE INDEX voices_by_owner ON voices (owner);
   CREATE TABLE voice_samples (
     voice_id TEXT PRIMARY KEY REFERENCES voices (voice_id) ON DELETE CASCADE,
     media_type TEXT NOT NULL,
     audio BYTEA NOT NULL
   );
   -- A deleted voice keeps its place in the list order, so a cursor naming it stays valid.
   CREATE TABLE deleted_voices (
     voice_id TEXT PRIMARY KEY,
     seq BIGINT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,  -- hex SHA-256 of the key; the key itself is never stored
     scopes TEXT[] NOT NULL,
     created_at TEXT NOT NULL
   );`,
  // Pronunciation dictionaries: every version of each, never changed once written.
  `CREATE TABLE dictionaries (
     dictionary_id TEXT NOT NULL,
     version INTEGER NOT NULL,
     name TEXT NOT NULL,
     rules TEXT NOT NULL,  -- JSON DictionaryRule[]
     created_at TEXT NOT NULL,
     PRIMARY KEY (dictionary_id, version)
   );`,
  // A key's own limits (JSON KeyLimits), in place of the service's; and every key's usage, by hour.
  `ALTER TABLE api_keys ADD COLUMN limits JSONB;
   CREATE TABLE key_usage (
     key_id TEXT NOT NULL,
     hour TIMESTAMPTZ NOT NULL,
     requests BIGINT NOT NULL DEFAULT 0,
     characters BIGINT NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, hour)
   );`,
]
