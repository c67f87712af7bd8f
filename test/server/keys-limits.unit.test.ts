import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { KeyStore, generateKey, hashKey } from '../../lib/server/keys.js'
import { MemoryLimiter } from '../../lib/server/limits.js'

describe('API keys', () => {
  it('are sk_ plus 256 random bits, and verify against their SHA-256 only', async () => {
    const key = generateKey()
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(key.slice(3), 'base64url').length).toBe(32)
    const store = KeyStore.fromConfig([{ hash: hashKey(key), scopes: ['voices'] }])
    expect(store.verify(key)).toMatchObject({ scopes: ['voices'] })
    expect(store.verify(`${key}x`)).toBeUndefined()
    expect(store.verify(key.replace('sk_', 'pk_'))).toBeUndefined()
    expect(store.verify(undefined)).toBeUndefined()
    expect(JSON.stringify(store.list())).not.toContain(key)
  })

  it('are found by id as the store holds them now, and each change of the store is announced', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-keys-'))
    const store = await KeyStore.load(dataDir)
    let changes = 0
    store.on('change', () => changes++)
    const { record } = await store.create('a', ['text_to_speech'])
    expect(store.principal(record.id)).toEqual({ keyId: record.id, scopes: ['text_to_speech'] })
    await (await KeyStore.load(dataDir)).revoke(record.id)  // another process: unseen until reloaded
    expect(store.principal(record.id)).toBeDefined()
    await store.reload()
    expect(store.principal(record.id)).toBeUndefined()
    expect(await store.revoke(record.id)).toBe(false)
    expect(changes).toBe(2)
  })

  it('come from the environment variable, comma-separated, with every scope', () => {
    const store = KeyStore.fromEnv('sk_one, sk_two')!
    expect(store.verify('sk_two')?.scopes).toEqual(['text_to_speech', 'voices', 'tokens', 'metrics'])
    expect(KeyStore.fromEnv('')).toBeUndefined()
  })
})

describe('MemoryLimiter', () => {
  it('counts requests and characters per window and gives the wait until the window ends', async () => {
    let now = 0
    const limiter = new MemoryLimiter({ requestsPerWindow: 2, windowSeconds: 10, charactersPerPeriod: 100, periodSeconds: 60 }, () => now)
    await limiter.hit('k')
    await limiter.hit('k')
    await limiter.hit('other')
    now = 4000
    await expect(limiter.hit('k')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, extra: { retry_after_seconds: 6 } })
    now = 10_000
    await limiter.hit('k')  // a new window
    await limiter.charge('k', 90)
    await expect(limiter.charge('k', 20)).rejects.toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED', extra: { retry_after_seconds: 60 } })
  })

  it('holds a concurrency slot until it is released, once', async () => {
    const limiter = new MemoryLimiter({ concurrentRequests: 1 })
    const release = await limiter.acquire('k')
    await expect(limiter.acquire('k')).rejects.toMatchObject({ code: 'TOO_MANY_CONCURRENT_REQUESTS', extra: { retry_after_seconds: 1 } })
    release()
    release()
    const again = await limiter.acquire('k')
    await expect(limiter.acquire('k')).rejects.toMatchObject({ code: 'TOO_MANY_CONCURRENT_REQUESTS' })
    again()
  })
})
