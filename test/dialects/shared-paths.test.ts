// Paths two APIs share, told apart by how the key was sent (docs/dialects/*.md): GET /v1/models is
// OpenAI's for a Bearer key and ElevenLabs' for an xi-api-key, each driven by its own SDK; a request
// with no key at all gets the fallback's (OpenAI's) refusal.
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js'
import OpenAI, { AuthenticationError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine } from '../helpers/engine.js'
import { ADAPTERS, KEY, start, TEST_KEYS, type Running } from '../helpers/server.js'

const engine = await testEngine()

describe.each(ADAPTERS)('GET /v1/models on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  it("answers OpenAI's SDK (Bearer) in OpenAI's list and ElevenLabs' SDK (xi-api-key) in ElevenLabs' array", async () => {
    const openai = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: KEY, maxRetries: 0 })
    const listed = await openai.models.list()
    expect(listed.data.map((model) => model.id)).toEqual(expect.arrayContaining(['tts-1', 'tts-1-hd', 'svc_flash_v1.5']))
    expect(listed.data.every((model) => model.object === 'model')).toBe(true)

    const elevenlabs = new ElevenLabsClient({ baseUrl: server.base, apiKey: KEY, maxRetries: 0 })
    const models = await elevenlabs.models.list()
    expect(models.map((model) => model.modelId)).toEqual(expect.arrayContaining(['eleven_multilingual_v2', 'eleven_flash_v2_5']))
  })

  it("refuses a request with no key in the fallback's (OpenAI's) shape, and a wrong xi-api-key in ElevenLabs'", async () => {
    const openai = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: 'sk_wrong', maxRetries: 0 })
    await expect(openai.models.list()).rejects.toBeInstanceOf(AuthenticationError)
    const bare = await fetch(`${server.base}/v1/models`)
    expect(bare.status).toBe(401)
    expect(await bare.json()).toMatchObject({ error: { code: 'invalid_api_key' } })
    const wrong = await fetch(`${server.base}/v1/models`, { headers: { 'xi-api-key': 'sk_wrong' } })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ detail: { status: 'invalid_api_key' } })
  })
})
