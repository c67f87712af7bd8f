/**
 * Voice mixing per request on a Kokoro pack: `{ mode: 'mix', voices: [{ id, weight }] }` in the
 * library, the SPEC routes and the WebSocket, and `a(3)+b(1)` in the OpenAI dialect. A mix's audio
 * is the configured blend's of the same weights, sample for sample; a mix that cannot be is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId } from '../../lib/index.js'
import { MAX_DISTINCT_MIXES } from '../../lib/engine/voice-mix.js'
import { voiceId } from '../helpers/engine.js'
import { KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'
import { KOKORO, KOKORO_TIMESTAMPED, PIPER } from './fixtures.js'

const engine = await createEngine({
  models: {
    'svc_flash_v1.5': { type: 'kokoro', path: KOKORO, blends: { af_mix: { af_heart: 3, am_michael: 1 } } },
    other_kokoro: { type: 'kokoro', path: KOKORO_TIMESTAMPED },
    'svc_pro_v1.0': { type: 'piper', path: PIPER },
  },
})
let server: Running
beforeAll(async () => {
  server = await start('standalone', { engine, keys: TEST_KEYS })
})
afterAll(async () => {
  await server.close()
  await engine.close()
})

const kokoro = (name: string) => packVoiceId({ type: 'kokoro', name: 'kokoro' }, name)
const MIX = { mode: 'mix', voices: [{ id: kokoro('af_heart'), weight: 3 }, { id: kokoro('am_michael'), weight: 1 }] } as const
const BLEND = { mode: 'id', id: kokoro('af_mix') } as const
const TEXT = 'Hello world, this is a mix.'
const request = (voice: unknown, model_id = 'svc_flash_v1.5') => ({
  model_id, transcript: TEXT, voice, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 },
}) as never

async function codeOf(promise: Promise<unknown>): Promise<{ code?: string; status?: number; message?: string }> {
  try {
    await promise
  } catch (error) {
    return error as { code?: string; status?: number; message?: string }
  }
  return {}
}

describe('a mix of a Kokoro pack\'s voices', () => {
  it('the library: its audio is the configured blend\'s of the same weights, sample for sample, and not either voice\'s', async () => {
    const mixed = await engine.synthesize(request(MIX))
    expect(mixed.length).toBeGreaterThan(4000)
    expect(mixed.equals(await engine.synthesize(request(BLEND)))).toBe(true)
    expect(mixed.equals(await engine.synthesize(request({ mode: 'id', id: kokoro('af_heart') })))).toBe(false)
    expect(mixed.equals(await engine.synthesize(request({ mode: 'id', id: kokoro('am_michael') })))).toBe(false)
    // Other weights, another voice.
    expect(mixed.equals(await engine.synthesize(request({ mode: 'mix', voices: [{ id: kokoro('af_heart'), weight: 1 }, { id: kokoro('am_michael'), weight: 1 }] })))).toBe(false)
  })

  it('the library refuses what cannot mix with a 400 that says why', async () => {
    const cases: [unknown, string, RegExp][] = [
      [MIX, 'svc_pro_v1.0', /Piper pack, which cannot mix/],
      [{ mode: 'mix', voices: [{ id: voiceId('Sarah'), weight: 1 }] }, 'svc_flash_v1.0', /builtin espeak engine, which cannot mix/],
      [{ mode: 'mix', voices: [{ id: kokoro('af_heart'), weight: 1 }, { id: packVoiceId({ type: 'kokoro', name: 'kokoro-timestamped' }, 'am_michael'), weight: 1 }] }, 'svc_flash_v1.5', /voice\.voices\.1\.id .* is not a voice of the kokoro pack behind svc_flash_v1\.5/],
      [{ mode: 'mix', voices: [{ id: voiceId('Sarah'), weight: 1 }] }, 'svc_flash_v1.5', /voice\.voices\.0\.id .* is not a voice of the kokoro pack/],
      [{ mode: 'mix', voices: [{ id: kokoro('af_heart'), weight: 0 }] }, 'svc_flash_v1.5', /voice\.voices\.0\.weight/],
      [{ mode: 'mix', voices: [] }, 'svc_flash_v1.5', /voice\.voices/],
      [{ mode: 'mix', voices: Array.from({ length: 9 }, () => ({ id: kokoro('af_heart'), weight: 1 })) }, 'svc_flash_v1.5', /voice\.voices/],
    ]
    for (const [voice, model, message] of cases) {
      expect(await codeOf(engine.synthesize(request(voice, model))), JSON.stringify(voice)).toMatchObject({ code: 'INVALID_REQUEST', status: 400, message: expect.stringMatching(message) })
    }
  })

  it('a pack takes a bounded number of distinct mixes; one it has made stays allowed', async () => {
    const pack = await createEngine({ models: { k: { type: 'kokoro', path: KOKORO } } })
    try {
      const heart = packVoiceId({ type: 'kokoro', name: 'kokoro' }, 'af_heart')
      const michael = packVoiceId({ type: 'kokoro', name: 'kokoro' }, 'am_michael')
      const mixOf = (weight: number) => ({ model_id: 'k', transcript: 'Hi.', voice: { mode: 'mix', voices: [{ id: heart, weight }, { id: michael, weight: 1 }] } }) as never
      for (let weight = 1; weight <= MAX_DISTINCT_MIXES; weight++) await pack.synthesize(mixOf(weight))
      expect(await codeOf(pack.synthesize(mixOf(MAX_DISTINCT_MIXES + 1)))).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/64 distinct mixes/) })
      expect((await pack.synthesize(mixOf(2))).length).toBeGreaterThan(0)
    } finally {
      await pack.close()
    }
  }, 60_000)
})

describe('over HTTP', () => {
  it('POST /text_to_speech: the mix\'s audio is the blend\'s; an invalid mix is a 400', async () => {
    const mixed = await post(server.base, '/text_to_speech', request(MIX))
    const blend = await post(server.base, '/text_to_speech', request(BLEND))
    expect([mixed.status, blend.status]).toEqual([200, 200])
    const audio = Buffer.from(await mixed.arrayBuffer())
    expect(audio.length).toBeGreaterThan(4000)
    expect(audio.equals(Buffer.from(await blend.arrayBuffer()))).toBe(true)
    const refused = await post(server.base, '/text_to_speech', request(MIX, 'svc_pro_v1.0'))
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error_code: 'INVALID_REQUEST', message: expect.stringMatching(/cannot mix/) })
  })

  it('a browser token bound to one voice may not mix it with another', async () => {
    const minted = await fetch(`${server.base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ voice_id: kokoro('af_heart') }) })
    const { token } = (await minted.json()) as { token: string }
    const speak = (voice: unknown) => fetch(`${server.base}/text_to_speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(request(voice)) })
    const alone = await speak({ mode: 'id', id: kokoro('af_heart') })
    expect(alone.status).toBe(200)
    await alone.arrayBuffer()
    const mixed = await speak(MIX)
    expect([mixed.status, ((await mixed.json()) as { error_code: string }).error_code]).toEqual([403, 'TOKEN_RESTRICTED'])
  })

  it('OpenAI\'s voice "af_heart(3)+am_michael(1)" is the same blend; a mix with a library voice is a 400 on voice', async () => {
    const speech = (voice: string, model = 'svc_flash_v1.5') => fetch(`${server.base}/v1/audio/speech`, {
      method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: TEXT, voice, response_format: 'pcm' }),
    })
    const mixed = await speech('af_heart(3) + am_michael(1)')
    const blend = await speech('af_mix (kokoro)')
    const heart = await speech('af_heart (kokoro)')
    expect([mixed.status, blend.status, heart.status]).toEqual([200, 200, 200])
    const audio = Buffer.from(await mixed.arrayBuffer())
    expect(audio.length).toBeGreaterThan(4000)
    expect(audio.equals(Buffer.from(await blend.arrayBuffer()))).toBe(true)
    expect(audio.equals(Buffer.from(await heart.arrayBuffer()))).toBe(false)
    const refused = await speech('af_heart(2)+Sarah')
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/is not a voice of the kokoro pack/) } })
    expect((await speech('af_heart(1)+am_michael(1)', 'svc_pro_v1.0')).status).toBe(400)
  })
})

describe('over the WebSocket', () => {
  it('a context with a mix speaks the blend\'s audio; an invalid mix is an INVALID_REQUEST error event', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    try {
      const { transcript: _, ...connection } = request(BLEND) as unknown as Record<string, unknown>
      client.send(connection)
      client.send({ context_id: 'blend', transcript: TEXT, force: true })
      client.send({ context_id: 'blend', close_context: true })
      client.send({ context_id: 'mix', transcript: TEXT, force: true, voice: MIX })
      client.send({ context_id: 'mix', close_context: true })
      await client.until(() => client.finished('blend') && client.finished('mix'))
      expect(client.audio('mix').length).toBeGreaterThan(4000)
      expect(client.audio('mix').equals(client.audio('blend'))).toBe(true)
      client.send({ context_id: 'piper', transcript: TEXT, force: true, model_id: 'svc_pro_v1.0', voice: MIX })
      await client.until(() => client.of('piper').some((e) => e.error_code !== undefined))
      expect(client.of('piper')).toContainEqual(expect.objectContaining({ error_code: 'INVALID_REQUEST', message: expect.stringMatching(/Piper pack, which cannot mix/) }))
    } finally {
      client.socket.close()
      await client.closed
    }
  })
})
