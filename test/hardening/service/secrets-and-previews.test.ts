// Issue 20, cases 12 and 14 (the logs): a client that left an uncached preview made another
// client's request for the same preview fail with 499; a key in a query string was logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createEngine } from '../../../lib/index.js'
import { newVoice } from '../../helpers/voices.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

describe('case 12: a preview one client leaves', () => {
  it('still reaches the others asking for it at once', async () => {
    const engine = await createEngine()
    try {
      const store = (engine as unknown as { store: { create(voice: unknown): Promise<{ record: { voice_id: string } }> } }).store
      const { record } = await store.create(newVoice('Previewed'))
      const leaving = new AbortController()
      const left = engine.voices.preview(record.voice_id, { signal: leaving.signal })
      const staying = engine.voices.preview(record.voice_id)
      leaving.abort()
      await expect(left).rejects.toMatchObject({ code: 'ABORTED' })
      const wav = await staying
      expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF')
      expect(wav.length).toBeGreaterThan(10_000)
    } finally {
      await engine.close()
    }
  })
})

describe.each(ADAPTERS)('case 14: keys never reach the log on %s', (adapter) => {
  let server: Running
  const logged: string[] = []
  beforeAll(async () => {
    server = await start(adapter, { engine: await createEngine(), keys: TEST_KEYS, log: (entry) => logged.push(JSON.stringify(entry)) })
  })
  afterAll(() => server.close())

  it('in an HTTP query string, or a WebSocket query however the name is spelt or repeated', async () => {
    await fetch(`${server.base}/voices/x?api_key=${KEY}&x-api-key=${KEY}`, { headers: { 'x-api-key': KEY } })
    for (const query of [`api%5Fkey=${KEY}&version=v1`, `api_key=${KEY}&api_key=${KEY}&version=v1`, `version=v1&%61pi_key=${encodeURIComponent(KEY)}`]) {
      const socket = new WebSocket(`${server.ws}/text_to_speech/websocket/ws?${query}`, { headers: { 'x-api-key': KEY } })
      await new Promise<void>((resolve) => {
        socket.once('open', () => socket.close())
        socket.once('close', () => resolve())
        socket.once('error', () => resolve())
      })
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(logged.filter((line) => line.includes('websocket'))).toHaveLength(3)
    for (const line of logged) {
      expect(line).not.toContain(KEY)
      expect(line).not.toContain(encodeURIComponent(KEY))
    }
  })
})
