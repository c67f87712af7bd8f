import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KeyStore } from '../../lib/server/keys.js'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, VOICES_ONLY_KEY, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const SARAH = voiceId('Sarah')
const KAL = voiceId('Kal')
const speech = (voice: string) => JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: 'Only with this voice.', voice: { mode: 'id', id: voice } })

async function mint(server: Running, credential: string, body: unknown = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': credential }, body: JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

async function speak(server: Running, token: string, voice: string): Promise<[number, string | undefined]> {
  const response = await fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: speech(voice) })
  if (response.status === 200) {
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
    return [200, undefined]
  }
  return [response.status, ((await response.json()) as { error_code: string }).error_code]
}

describe.each(ADAPTERS)('browser tokens on %s', (adapter) => {
  let server: Running
  let keys: KeyStore
  let revocable: { key: string; id: string }
  beforeAll(async () => {
    keys = KeyStore.fromConfig(TEST_KEYS)
    const created = await keys.create('page minting', ['text_to_speech', 'tokens'])
    revocable = { key: created.key, id: created.record.id }
    server = await start(adapter, { engine, keys })
  })
  afterAll(() => server.close())

  it('a token minted for voice A speaks with A, is refused for B and for voice management', async () => {
    const { status, json } = await mint(server, KEY, { voice_id: SARAH, expires_in_seconds: 300 })
    expect(status).toBe(200)
    expect(json).toMatchObject({ scopes: ['text_to_speech'], voice_id: SARAH })
    const token = json.token as string
    expect(token).toMatch(/^tk_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(Date.parse(json.expires_at as string) - Date.now()).toBeGreaterThan(290_000)

    expect(await speak(server, token, SARAH)).toEqual([200, undefined])
    expect(await speak(server, token, KAL)).toEqual([403, 'TOKEN_RESTRICTED'])
    const manage = await fetch(`${server.base}/voices`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{"limit":1}' })
    expect([manage.status, ((await manage.json()) as { error_code: string }).error_code]).toEqual([401, 'INVALID_API_KEY'])
    // Nor may a token mint tokens.
    const again = await fetch(`${server.base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' })
    expect(again.status).toBe(401)
    await again.arrayBuffer()
  })

  it('holds inside the text too: SSML that switches to another voice is refused', async () => {
    const token = (await mint(server, KEY, { voice_id: SARAH })).json.token as string
    const ssml = (voice: string) => JSON.stringify({ model_id: 'svc_flash_v1.5', transcript: `<speak>Only <voice name="${voice}">with this voice.</voice></speak>`, voice: { mode: 'id', id: SARAH } })
    const send = (voice: string) => fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: ssml(voice) })
    const same = await send('Sarah')
    expect([same.status, (await same.arrayBuffer()).byteLength > 10_000]).toEqual([200, true])
    const other = await send('Kal')
    expect([other.status, ((await other.json()) as { error_code: string }).error_code]).toEqual([403, 'TOKEN_RESTRICTED'])
  })

  // The binding holds the engine calls made with the request's signal: each dialect's routes hand it on.
  it("holds on the dialects' routes too: OpenAI's speech and Cartesia's bytes and SSE speak with A only", async () => {
    const token = (await mint(server, KEY, { voice_id: SARAH })).json.token as string
    const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) })
    const outcome = async (response: Response) => [response.status, (await response.arrayBuffer()).byteLength > 10_000]
    const openai = (voice: string) => send('/v1/audio/speech', { model: 'tts-1', voice, input: 'Only with this voice.', response_format: 'pcm' })
    expect(await outcome(await openai('alloy'))).toEqual([200, true])
    expect((await openai('ash')).status).toBe(403)
    const cartesia = (path: string, voice: string) =>
      send(path, { model_id: 'sonic-3', transcript: 'Only with this voice.', voice: { mode: 'id', id: voice }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 }, language: 'en' }, { 'cartesia-version': '2026-08-14' })
    for (const path of ['/tts/bytes', '/tts/sse']) {
      expect(await outcome(await cartesia(path, SARAH))).toEqual([200, true])
      expect((await cartesia(path, KAL)).status).toBe(403)
    }
  })

  it('over the WebSocket as access_token: a context with voice A speaks, one with B is refused', async () => {
    const token = (await mint(server, KEY, { voice_id: SARAH })).json.token as string
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?access_token=${token}&version=v1`)
    client.send({ model_id: 'svc_flash_v1.5', voice: { mode: 'id', id: SARAH } })
    client.send({ context_id: 'a', transcript: 'With my voice. ' })
    client.send({ context_id: 'a', transcript: '', close_context: true })
    await client.until(() => client.of('a').some((e) => e.final === true))
    expect(client.audio('a').length).toBeGreaterThan(10_000)
    client.send({ context_id: 'b', transcript: 'With another. ', voice: { mode: 'id', id: KAL } })
    await client.until(() => client.of('b').some((e) => 'error_code' in e || 'error' in e))
    expect(JSON.stringify(client.of('b'))).toContain('TOKEN_RESTRICTED')
    expect(client.audio('b').length).toBe(0)
    client.socket.close()
  })

  it('is refused after its expiry, after its key is revoked, and with any one byte changed', async () => {
    const minted = (await mint(server, KEY, { expires_in_seconds: 1 })).json
    const short = minted.token as string
    // It lives at least the second asked (its expiry is rounded up to the second), then no more.
    expect(Date.parse(minted.expires_at as string) - Date.now()).toBeGreaterThanOrEqual(950)
    expect(await speak(server, short, KAL)).toEqual([200, undefined])
    await sleep(Date.parse(minted.expires_at as string) - Date.now() + 50)
    expect(await speak(server, short, KAL)).toEqual([401, 'INVALID_API_KEY'])

    const ofRevocable = (await mint(server, revocable.key)).json.token as string
    expect(await speak(server, ofRevocable, KAL)).toEqual([200, undefined])
    await keys.revoke(revocable.id)
    expect(await speak(server, ofRevocable, KAL)).toEqual([401, 'INVALID_API_KEY'])

    const token = (await mint(server, KEY, { voice_id: SARAH })).json.token as string
    expect(await speak(server, token, SARAH)).toEqual([200, undefined])
    // Over HTTP for a byte of the claims and of the signature; every position through the service.
    const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1)
    expect(await speak(server, flip(10), SARAH)).toEqual([401, 'INVALID_API_KEY'])
    expect(await speak(server, flip(token.length - 2), SARAH)).toEqual([401, 'INVALID_API_KEY'])
    for (let at = 3; at < token.length; at++) {
      if (token[at] === '.') continue
      expect(() => server.service.authenticate(flip(at), 'text_to_speech'), `byte ${at}`).toThrow(/token/)
    }
  })

  it('is minted only by a key with the tokens scope, for at most an hour, with scopes the key has', async () => {
    expect((await mint(server, VOICES_ONLY_KEY)).status).toBe(401)
    const tooLong = await mint(server, KEY, { expires_in_seconds: 3601 })
    expect([tooLong.status, tooLong.json.error_code]).toEqual([400, 'INVALID_REQUEST'])
    // The minting key lacks `voices`: its tokens lack it too.
    const created = await keys.create('speech only', ['text_to_speech', 'tokens'])
    const narrowed = await mint(server, created.key, { scopes: ['text_to_speech', 'voices'] })
    expect(narrowed.json.scopes).toEqual(['text_to_speech'])
    const full = await mint(server, KEY, { scopes: ['voices'] })
    const listed = await fetch(`${server.base}/voices`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${full.json.token as string}` }, body: '{"limit":1}' })
    expect(listed.status).toBe(200)
    await listed.arrayBuffer()
  })
})

describe('the playground token', () => {
  it('is minted for the configured key, for a same-origin request from loopback only', async () => {
    const keys = KeyStore.fromConfig(TEST_KEYS)
    const configured = await start('standalone', { engine, keys, tokens: { playgroundKey: keys.verify(KEY)!.keyId } })
    const none = await start('standalone', { engine, keys })
    try {
      const minted = await fetch(`${configured.base}/playground/token`, { method: 'POST' })
      expect(minted.status).toBe(200)
      const { token, scopes } = (await minted.json()) as { token: string; scopes: string[] }
      expect(scopes).toEqual(['text_to_speech', 'voices'])
      expect(await speak(configured, token, KAL)).toEqual([200, undefined])
      const sameOrigin = await fetch(`${configured.base}/playground/token`, { method: 'POST', headers: { origin: configured.base } })
      expect(sameOrigin.status).toBe(200)
      await sameOrigin.arrayBuffer()
      const crossOrigin = await fetch(`${configured.base}/playground/token`, { method: 'POST', headers: { origin: 'http://evil.example' } })
      expect(crossOrigin.status).toBe(401)
      await crossOrigin.arrayBuffer()
      const unconfigured = await fetch(`${none.base}/playground/token`, { method: 'POST' })
      expect([unconfigured.status, ((await unconfigured.json()) as { error_code: string }).error_code]).toEqual([404, 'ROUTE_NOT_FOUND'])
    } finally {
      await configured.close()
      await none.close()
    }
  })
})
