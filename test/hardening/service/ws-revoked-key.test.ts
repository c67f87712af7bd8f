// Issue 20, case 8: a key revoked while a WebSocket of it was open went on working on that socket
// (a new context was admitted and spoke). A revocation or a change of scope now reaches open
// sockets: the store's change closes them at once, and each new context checks the key again.
// Each ends with an INVALID_API_KEY error event and the close 1008 INVALID_API_KEY.
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { KeyStore, KEY_FILE_NAME } from '../../../lib/server/keys.js'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { serveListening } from '../../helpers/served.js'
import { ADAPTERS, start, WsClient, type Running } from '../../helpers/server.js'
import { waitUntil } from '../../helpers/wait.js'

const root = path.resolve(import.meta.dirname, '../../..')
const engine = await testEngine()
const PATH = '/text_to_speech/websocket/ws'
const init = { model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: voiceId('Sarah') } }
const LONG = 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background. '.repeat(30)

/** A server on a key file of its own with one key, and a socket of that key speaking a long context. */
async function speaking(adapter: (typeof ADAPTERS)[number]) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-revoke-'))
  const store = await KeyStore.load(dataDir)
  const { key, record } = await store.create('ws')
  const server = await start(adapter, { engine, keys: store })
  const client = await WsClient.connect(`${server.ws}${PATH}?api_key=${key}&version=v1`)
  client.send(init)
  client.send({ context_id: 'long', transcript: LONG })
  await client.until(() => client.of('long').length > 0)
  return { dataDir, store, record, server, client }
}

async function expectClosedForKey(client: WsClient, server: Running): Promise<void> {
  expect(await Promise.race([client.closed, sleep(5000).then(() => 'still open')])).toEqual({ code: 1008, reason: 'INVALID_API_KEY' })
  expect(client.events.filter((e) => e.error_code)).toEqual([expect.objectContaining({ error_code: 'INVALID_API_KEY' })])
  // Its context stopped with it.
  expect(await waitUntil(() => server.service.realtimeContexts === 0, 2000)).toBe(true)
}

describe.each(ADAPTERS)('a key revoked while its WebSocket is open, on %s', (adapter) => {
  it("closes the socket when the service's store revokes the key", async () => {
    const { store, record, server, client } = await speaking(adapter)
    try {
      await store.revoke(record.id)
      await expectClosedForKey(client, server)
    } finally {
      await server.close(0)
    }
  })

  it('closes the socket when the key file, changed by another process, is reloaded: revoked, or the scope taken away', async () => {
    for (const change of ['revoke', 'scope'] as const) {
      const { dataDir, store, record, server, client } = await speaking(adapter)
      try {
        if (change === 'revoke') await (await KeyStore.load(dataDir)).revoke(record.id)
        else writeFileSync(path.join(dataDir, KEY_FILE_NAME), JSON.stringify({ keys: [{ ...record, scopes: ['voices'] }] }))
        await store.reload()
        await expectClosedForKey(client, server)
      } finally {
        await server.close(0)
      }
    }
  })

  it('refuses a new context of a revoked key, and closes its socket, even when the change was not announced', async () => {
    const { store, record, server, client } = await speaking(adapter)
    try {
      // As if the service had not heard of the change: only the check at the new context stands.
      store.removeAllListeners('change')
      await store.revoke(record.id)
      await sleep(100)
      expect(client.socket.readyState).toBe(client.socket.OPEN)
      client.send({ context_id: 'after', transcript: 'Spoken with a revoked key. ' })
      await expectClosedForKey(client, server)
      expect(client.events.find((e) => e.error_code)).toMatchObject({ context_id: 'after' })
      expect(client.of('after').filter((e) => e.audio)).toEqual([])
    } finally {
      await server.close(0)
    }
  })
})

describe('a key revoked with `svc-tts keys revoke` while `svc-tts serve` runs', () => {
  it('closes the open WebSocket of that key within a few seconds', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-revoke-cli-'))
    const { key, record } = await (await KeyStore.load(dataDir)).create('ws')
    const server = await serveListening(dataDir, 'standalone')
    try {
      const client = await WsClient.connect(`${server.url.replace('http', 'ws')}${PATH}?api_key=${key}&version=v1`)
      client.send(init)
      client.send({ context_id: 'long', transcript: LONG })
      await client.until(() => client.of('long').length > 0)
      await promisify(execFile)(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'keys', 'revoke', record.id, '--data-dir', dataDir], { cwd: root })
      const started = performance.now()
      expect(await Promise.race([client.closed, sleep(8000).then(() => 'still open')])).toEqual({ code: 1008, reason: 'INVALID_API_KEY' })
      expect(performance.now() - started).toBeLessThan(8000)
    } finally {
      expect(await server.stop(15_000)).toBe(0)
    }
  }, 30_000)
})
