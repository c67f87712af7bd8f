import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SharedDatabase } from '../../lib/postgres/database.js'
import { KeyStore } from '../../lib/server/keys.js'
import { databaseKeys } from '../../lib/server/postgres-keys.js'
import { PostgresUsage } from '../../lib/server/postgres-usage.js'
import { startPostgres, type PostgresServer } from '../helpers/postgres.js'
import { mp3CloneForm } from '../helpers/samples.js'
import { serveListening, type Listening } from '../helpers/served.js'
import { WsClient } from '../helpers/server.js'
import { voiceId } from '../helpers/engine.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

let postgres: PostgresServer
beforeAll(async () => {
  postgres = await startPostgres()
}, 30_000)
afterAll(() => postgres.remove())

/** Polls `check` until it holds; resolves with how long that took. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return performance.now() - started
}

describe('API keys in the shared database', () => {
  it('behave as the key file does: created, listed, verified, revoked, kept across restarts', async () => {
    const stores = [KeyStore.load(mkdtempSync(path.join(tmpdir(), 'svc-tts-keyfile-'))), SharedDatabase.connect(postgres.url).then(databaseKeys)]
    for (const opening of stores) {
      const store = await opening
      const before = store.size
      const { key, record } = await store.create('contract', ['text_to_speech', 'tokens'])
      expect(store.verify(key)).toEqual({ keyId: record.id, scopes: ['text_to_speech', 'tokens'] })
      expect(store.list().map((k) => k.id)).toContain(record.id)
      expect(await store.revoke(record.id)).toBe(true)
      expect(store.verify(key)).toBeUndefined()
      expect(await store.revoke(record.id)).toBe(false)
      expect(store.size).toBe(before)
    }
  })

  it("keep a key's own limits: given at creation, changed, cleared, and read again by another store", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-keyfile-'))
    const databases = await Promise.all([SharedDatabase.connect(postgres.url), SharedDatabase.connect(postgres.url)])
    try {
      const pairs: [() => Promise<KeyStore>, () => Promise<KeyStore>][] = [
        [() => KeyStore.load(dir), () => KeyStore.load(dir)],
        [() => databaseKeys(databases[0]), () => databaseKeys(databases[1])],
      ]
      for (const [open, openAgain] of pairs) {
        const store = await open()
        const { record } = await store.create('limited', ['text_to_speech'], { concurrentRequests: 2, charactersPerPeriod: 500 })
        expect(store.limitsOf(record.id)).toEqual({ concurrentRequests: 2, charactersPerPeriod: 500 })
        expect((await openAgain()).limitsOf(record.id)).toEqual({ concurrentRequests: 2, charactersPerPeriod: 500 })
        expect(await store.setLimits(record.id, { requestsPerWindow: 7 })).toBe(true)
        expect((await openAgain()).limitsOf(record.id)).toEqual({ requestsPerWindow: 7 })
        expect(await store.setLimits(record.id, undefined)).toBe(true)
        expect((await openAgain()).limitsOf(record.id)).toBeUndefined()
        expect(await store.setLimits('no-such-key', { requestsPerWindow: 1 })).toBe(false)
      }
    } finally {
      await Promise.all(databases.map((database) => database.close()))
    }
  })

  it('record usage by key and hour, many uses in few writes; while the database is down the counts are kept and written when it is back', async () => {
    const database = await SharedDatabase.connect(postgres.url)
    const warnings: string[] = []
    const usage = new PostgresUsage(database, (message) => warnings.push(message))
    const since = new Date()
    try {
      for (let i = 0; i < 200; i++) usage.record('usage-a', { requests: 1, characters: 10 })
      usage.record('usage-b', { characters: 5 })
      const counted = async () => (await usage.since(since)).filter((use) => use.key_id.startsWith('usage-'))
      await within(2000, async () => JSON.stringify(await counted()) === JSON.stringify([
        { key_id: 'usage-a', requests: 200, characters: 2000 },
        { key_id: 'usage-b', requests: 0, characters: 5 },
      ]))
      await postgres.stop()
      usage.record('usage-a', { requests: 1, characters: 3 })
      await within(5000, () => warnings.some((message) => message.includes('it is kept')))
      await postgres.restart()
      await within(15_000, async () => {
        try {
          return (await counted())[0]?.characters === 2003
        } catch {
          return false
        }
      })
      expect(await counted()).toEqual([{ key_id: 'usage-a', requests: 201, characters: 2003 }, { key_id: 'usage-b', requests: 0, characters: 5 }])
      expect(warnings.at(-1)).toMatch(/is written/)
    } finally {
      await usage.close()
      await database.close()
    }
  }, 40_000)

  it('a key revoked through one replica is refused by another within a second, and one created is accepted', async () => {
    const [a, b] = await Promise.all([SharedDatabase.connect(postgres.url), SharedDatabase.connect(postgres.url)])
    try {
      const [keysA, keysB] = await Promise.all([databaseKeys(a), databaseKeys(b)])
      const { key, record } = await keysA.create('replicated')
      const seen = await within(1000, () => keysB.verify(key) !== undefined)
      let announced = 0
      keysB.on('change', () => announced++)
      await keysA.revoke(record.id)
      const refused = await within(1000, () => keysB.verify(key) === undefined)
      expect(seen).toBeLessThan(1000)
      expect(refused).toBeLessThan(1000)
      expect(announced).toBeGreaterThan(0)  // open connections of the key are checked again
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('while the database is down: keys last read still verify, changes fail with STORE_UNAVAILABLE, and the store reads them again when it is back', async () => {
    const database = await SharedDatabase.connect(postgres.url)
    const other = await SharedDatabase.connect(postgres.url)
    try {
      const keys = await databaseKeys(database)
      const { key, record } = await keys.create('outage')
      await postgres.stop()
      expect(keys.verify(key)?.keyId).toBe(record.id)
      await expect(keys.create('lost')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 })
      await expect(keys.revoke(record.id)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
      expect(keys.verify(key)?.keyId).toBe(record.id)  // a failed revoke revokes nothing anywhere
      await postgres.restart()
      // Revoked by another replica once the database is back: this one hears of it after its listener reconnects.
      await within(10_000, async () => {
        try {
          return await (await databaseKeys(other)).revoke(record.id)
        } catch {
          return false
        }
      })
      await within(10_000, () => keys.verify(key) === undefined)
    } finally {
      await Promise.all([database.close(), other.close()])
    }
  }, 40_000)
})

describe('two svc-tts serve replicas on one database', () => {
  const replicas: Listening[] = []
  let key: string
  beforeAll(async () => {
    const cli = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'create', '--name', 'replicas', '--database-url', postgres.url], { cwd: root })
    key = cli.stdout.trim()
    for (let i = 0; i < 2; i++) {
      replicas.push(await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-replica-')), 'standalone', { env: { SVC_TTS_DATABASE_URL: postgres.url } }))
    }
  }, 60_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.stop(15_000)
  })

  it('share voices: cloned on A, it speaks on B; deleted on B, it is gone on A', async () => {
    const [a, b] = replicas as [Listening, Listening]
    const form = mp3CloneForm('Shared clone')
    const cloned = await fetch(`${a.url}/voices/clone`, { method: 'POST', headers: { 'x-api-key': key }, body: form })
    expect(cloned.status).toBe(200)
    const { voice_id } = (await cloned.json()) as { voice_id: string }
    const spoken = await fetch(`${b.url}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ model_id: 'svc_pro_v1.0', transcript: 'Cloned on the other replica.', voice: { mode: 'id', id: voice_id } }) })
    expect(spoken.status).toBe(200)
    expect((await spoken.arrayBuffer()).byteLength).toBeGreaterThan(20_000)
    expect((await fetch(`${b.url}/voices/${voice_id}`, { method: 'DELETE', headers: { 'x-api-key': key } })).status).toBe(204)
    const gone = await fetch(`${a.url}/voices/${voice_id}`, { headers: { 'x-api-key': key } })
    expect([gone.status, ((await gone.json()) as { error_code: string }).error_code]).toEqual([404, 'VOICE_NOT_FOUND'])
  })

  it('share keys: one revoked with svc-tts keys is refused by both within a second, and the WebSocket open on B with it is closed', async () => {
    const [a, b] = replicas as [Listening, Listening]
    const created = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'create', '--name', 'doomed', '--database-url', postgres.url], { cwd: root })
    const doomed = created.stdout.trim()
    const id = /created key (\S+)/.exec(created.stderr)![1]!
    const voices = (url: string) => fetch(`${url}/voices`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': doomed }, body: '{"limit":1}' }).then((r) => r.status)
    await within(1000, async () => (await voices(a.url)) === 200 && (await voices(b.url)) === 200)
    const socket = await WsClient.connect(`${b.url.replace('http', 'ws')}/text_to_speech/websocket/ws?api_key=${doomed}&version=v1`)
    socket.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } })
    await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'revoke', id, '--database-url', postgres.url], { cwd: root })
    const revokedAt = performance.now()
    await within(1000, async () => (await voices(a.url)) === 401 && (await voices(b.url)) === 401)
    expect(performance.now() - revokedAt).toBeLessThan(1000)
    const closed = await socket.closed
    expect([closed.code, closed.reason]).toEqual([1008, 'INVALID_API_KEY'])
    const listed = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'list', '--database-url', postgres.url], { cwd: root })
    expect(listed.stdout).not.toContain(id)
    expect(listed.stdout).toContain('replicas')
  }, 30_000)

  it("a key's own limits, set with svc-tts keys limits, hold on both replicas within a second; svc-tts keys usage counts both replicas' requests and characters", async () => {
    const [a, b] = replicas as [Listening, Listening]
    const created = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'create', '--name', 'metered', '--limits', 'requestsPerWindow=1000', '--database-url', postgres.url], { cwd: root })
    const metered = created.stdout.trim()
    const id = /created key (\S+)/.exec(created.stderr)![1]!
    expect(created.stderr).toContain('limits requestsPerWindow=1000')
    // What the key used, as the replicas answered: every request past the key check and the rate check, and the characters of each one spoken.
    const used = { requests: 0, characters: 0 }
    const speak = async (url: string, transcript: string) => {
      const response = await fetch(`${url}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': metered }, body: JSON.stringify({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') } }) })
      const body = Buffer.from(await response.arrayBuffer())
      if (response.status === 200 || response.status === 429) used.requests++
      if (response.status === 200) used.characters += transcript.length
      return { status: response.status, body }
    }
    await within(1000, async () => (await speak(a.url, 'One.')).status === 200 && (await speak(b.url, 'Two.')).status === 200)
    await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'limits', id, '--limits', 'charactersPerPeriod=12', '--database-url', postgres.url], { cwd: root })
    // Each replica counts in its own memory here (no Redis): 12 characters each (4 of them spoken above), then 429.
    await within(1000, async () => (await speak(a.url, 'Thirteen char')).status === 429)
    const refused = await speak(b.url, 'Thirteen char')
    expect([refused.status, (JSON.parse(refused.body.toString()) as { error_code: string }).error_code]).toEqual([429, 'USAGE_LIMIT_EXCEEDED'])
    expect((await speak(b.url, 'Eight ch')).status).toBe(200)
    const listed = await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'list', '--database-url', postgres.url], { cwd: root })
    expect(listed.stdout).toMatch(new RegExp(`${id}  metered .* limits=charactersPerPeriod=12`))
    const usage = async () => (await run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'usage', '--database-url', postgres.url], { cwd: root })).stdout
    const expected = `${id}  metered  requests=${used.requests}  characters=${used.characters}`
    await within(3000, async () => (await usage()).split('\n').includes(expected))
  }, 30_000)

  it('report the database in /readyz', async () => {
    const ready = await fetch(`${replicas[0]!.url}/readyz`)
    expect(await ready.json()).toMatchObject({ ready: true, checks: { voice_store: 'ok' } })
  })
})
