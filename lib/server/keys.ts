/**
 * API keys: `sk_` + 256 random bits (base64url). Only the SHA-256 of a key is ever kept; a
 * 256-bit random secret needs no slow KDF, since nothing about it can be guessed. A presented key
 * is hashed and its hash looked up in a map: the lookup's timing can tell an attacker about the
 * hash of a key they chose, which gives nothing about any stored key (finding a key from its hash
 * is the preimage problem), so one lookup costs the same with one key or a million. The keys live
 * in memory, so that a request's check never waits; where they are kept beyond the process (a key
 * file, or a database that replicas share) is the store's persistence. A store emits 'change' when
 * its keys change (created, revoked, or read again), so open connections can be checked again.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { keyLimitsSchema, type KeyLimits } from './limits.js'

export const SCOPES = ['text_to_speech', 'voices', 'tokens', 'metrics'] as const
export type Scope = (typeof SCOPES)[number]

/** The environment variable that may hold keys (comma-separated), each with every scope. */
export const API_KEYS_ENV = 'SVC_TTS_API_KEYS'
export const KEY_FILE_NAME = 'api-keys.json'

export interface StoredKey {
  id: string
  name: string
  /** Hex SHA-256 of the key. */
  hash: string
  scopes: Scope[]
  created_at: string
  /** The key's own limits, in place of the service's (docs/server.md#limits). */
  limits?: KeyLimits
}

/** A key as it is configured in options: the secret itself, or an already hashed one. */
export type KeyConfig = string | { key?: string; hash?: string; name?: string; scopes?: Scope[]; limits?: KeyLimits }

const storedKeySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  scopes: z.array(z.enum(SCOPES)),
  created_at: z.string(),
  limits: keyLimitsSchema.optional(),
})
const keyFileSchema = z.object({ keys: z.array(storedKeySchema) })

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

export function generateKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`
}

function stored(config: KeyConfig, index: number): StoredKey {
  const entry = typeof config === 'string' ? { key: config } : config
  const hash = entry.hash ?? (entry.key !== undefined ? hashKey(entry.key) : undefined)
  if (!hash || !/^[0-9a-f]{64}$/.test(hash)) throw new TtsError('INVALID_REQUEST', `api key ${index} needs a key or a hex SHA-256 hash`)
  return { id: hash.slice(0, 12), name: entry.name ?? `key ${index + 1}`, hash, scopes: entry.scopes ?? [...SCOPES], created_at: new Date(0).toISOString(), ...(entry.limits && { limits: entry.limits }) }
}

/** The identity a verified key gives a request: its id (for limits and logs) and its scopes. */
export interface Principal {
  keyId: string
  scopes: readonly Scope[]
  /** A browser token's binding: the one voice or model it speaks with. */
  bound?: { voiceId?: string; modelId?: string }
}

/** Where a store's keys are kept beyond the process. */
export interface KeyPersistence {
  /** Every key, as kept now. */
  load(): Promise<StoredKey[]>
  /** Keeps a new key; `all` is every key with it. */
  add(key: StoredKey, all: readonly StoredKey[]): Promise<void>
  /** Forgets a key; `all` is every key left. */
  remove(id: string, all: readonly StoredKey[]): Promise<void>
  /** Keeps a key's new limits; `all` is every key with it changed. */
  update(key: StoredKey, all: readonly StoredKey[]): Promise<void>
}

/** The key file of a data directory (written whole, atomically, readable by its owner only). */
export class KeyFile implements KeyPersistence {
  constructor(readonly path: string) {}

  async load(): Promise<StoredKey[]> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    return keyFileSchema.parse(JSON.parse(text)).keys
  }

  add(_key: StoredKey, all: readonly StoredKey[]): Promise<void> {
    return this.save(all)
  }

  remove(_id: string, all: readonly StoredKey[]): Promise<void> {
    return this.save(all)
  }

  update(_key: StoredKey, all: readonly StoredKey[]): Promise<void> {
    return this.save(all)
  }

  private async save(keys: readonly StoredKey[]): Promise<void> {
    await mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 })
    const temporary = `${this.path}.${process.pid}.tmp`
    await writeFile(temporary, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 })
    await rename(temporary, this.path)
  }
}

export class KeyStore extends EventEmitter<{ change: [] }> {
  private keys: StoredKey[] = []
  private byHash = new Map<string, StoredKey>()
  /** The same keys by id: a connection's key is looked up again at each new context. */
  private byId = new Map<string, StoredKey>()

  constructor(keys: readonly StoredKey[] = [], private readonly persistence?: KeyPersistence) {
    super()
    // Every service sharing the store listens (replicas in one process, tests): no count is a leak.
    this.setMaxListeners(0)
    this.replace(keys)
  }

  /** A store kept by `persistence`, with the keys it holds now. */
  static async open(persistence: KeyPersistence): Promise<KeyStore> {
    return new KeyStore(await persistence.load(), persistence)
  }

  static fromConfig(configs: readonly KeyConfig[]): KeyStore {
    return new KeyStore(configs.map(stored))
  }

  static fromEnv(value: string | undefined): KeyStore | undefined {
    const keys = value?.split(',').map((k) => k.trim()).filter(Boolean) ?? []
    return keys.length ? KeyStore.fromConfig(keys) : undefined
  }

  /** The key file of a data directory; a missing file is an empty store that saves there. */
  static load(dataDir: string): Promise<KeyStore> {
    return KeyStore.open(new KeyFile(path.join(dataDir, KEY_FILE_NAME)))
  }

  /** Reads the keys again (a key created or revoked by another process: `svc-tts keys`, another replica). */
  async reload(): Promise<void> {
    if (!this.persistence) return
    this.replace(await this.persistence.load())
    this.emit('change')
  }

  /** The file the keys are saved in, if they are kept in one. */
  get path(): string | undefined {
    return this.persistence instanceof KeyFile ? this.persistence.path : undefined
  }

  get size(): number {
    return this.keys.length
  }

  list(): readonly StoredKey[] {
    return this.keys
  }

  /** Creates a key, stores its hash, and returns the secret: the only time it exists in full. */
  async create(name: string, scopes: readonly Scope[] = SCOPES, limits?: KeyLimits): Promise<{ key: string; record: StoredKey }> {
    const key = generateKey()
    const record: StoredKey = { id: randomUUID().slice(0, 8), name, hash: hashKey(key), scopes: [...scopes], created_at: new Date().toISOString(), ...(limits && { limits }) }
    const all = [...this.keys, record]
    // Kept first: a key the persistence refused (a database down) is not handed out.
    await this.persistence?.add(record, all)
    this.replace(all)
    this.emit('change')
    return { key, record }
  }

  async revoke(id: string): Promise<boolean> {
    const kept = this.keys.filter((k) => k.id !== id)
    if (kept.length === this.keys.length) return false
    await this.persistence?.remove(id, kept)
    this.replace(kept)
    this.emit('change')
    return true
  }

  /** Gives a key its own limits (none: the service's again); false when there is no such key. */
  async setLimits(id: string, limits: KeyLimits | undefined): Promise<boolean> {
    const key = this.byId.get(id)
    if (!key) return false
    const { limits: _, ...rest } = key
    const changed: StoredKey = limits && Object.keys(limits).length > 0 ? { ...rest, limits } : rest
    const all = this.keys.map((k) => (k.id === id ? changed : k))
    await this.persistence?.update(changed, all)
    this.replace(all)
    this.emit('change')
    return true
  }

  /** The key's own limits, where it has any. */
  limitsOf(keyId: string): KeyLimits | undefined {
    return this.byId.get(keyId)?.limits
  }

  /** The key's principal, or undefined. */
  verify(presented: string | undefined): Principal | undefined {
    if (!presented || !presented.startsWith('sk_')) return undefined
    const match = this.byHash.get(hashKey(presented))
    return match && { keyId: match.id, scopes: match.scopes }
  }

  /** The principal of the key with this id as the store holds it now (its scopes may have changed), or undefined once it is gone. */
  principal(keyId: string): Principal | undefined {
    const key = this.byId.get(keyId)
    return key && { keyId: key.id, scopes: key.scopes }
  }

  private replace(keys: readonly StoredKey[]): void {
    this.keys = [...keys]
    this.byHash = new Map(this.keys.map((key) => [key.hash, key]))
    this.byId = new Map(this.keys.map((key) => [key.id, key]))
  }
}
