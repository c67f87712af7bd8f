import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES, type VoiceRecord } from '../../lib/index.js'
import { decodeWav } from '../helpers/audio.js'
import { MP3_SAMPLE } from '../helpers/samples.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, type Running } from '../helpers/server.js'

const engine = await createEngine()

function cloneForm(fields: Record<string, string>, clip?: Buffer): FormData {
  const form = new FormData()
  if (clip) form.set('clip', new Blob([new Uint8Array(clip)], { type: 'audio/mpeg' }), 'me.mp3')
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  return form
}

describe.each(ADAPTERS)('voice operations over HTTP on %s', (adapter) => {
  let server: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => server.close())

  const send = (method: string, path: string, body?: FormData | object) =>
    fetch(`${server.base}${path}`, {
      method,
      headers: { 'x-api-key': KEY, ...(body && !(body instanceof FormData) && { 'content-type': 'application/json' }) },
      ...(body && { body: body instanceof FormData ? body : JSON.stringify(body) }),
    })
  const errorOf = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error_code: string }).error_code })

  it('clone, list, get, batch, update, preview and delete', async () => {
    const cloned = await send('POST', '/voices/clone', cloneForm({ name: 'Web', language: 'en', description: 'from a form' }, MP3_SAMPLE))
    expect(cloned.status).toBe(200)
    const voice = (await cloned.json()) as VoiceRecord
    expect(voice).toMatchObject({ name: 'Web', description: 'from a form', voice_type: 'CUSTOM', language: 'en' })

    const listed = (await (await post(server.base, '/voices', { limit: 5, voice_type: 'CUSTOM' })).json()) as { voices: VoiceRecord[] }
    expect(listed.voices.map((v) => v.voice_id)).toEqual([voice.voice_id])
    expect(await (await send('GET', `/voices/${voice.voice_id}`)).json()).toEqual(voice)
    expect(await (await send('POST', '/voices/batch', { voice_ids: [voice.voice_id, 'gone'] })).json()).toEqual({ voices: [voice], not_found: ['gone'] })

    const updated = (await (await send('PUT', `/voices/${voice.voice_id}`, { name: 'Web 2' })).json()) as VoiceRecord
    expect(updated.name).toBe('Web 2')

    const preview = await send('GET', `/voices/${voice.voice_id}/preview`)
    expect(preview.headers.get('content-type')).toBe('audio/wav')
    expect(decodeWav(Buffer.from(await preview.arrayBuffer())).data.length).toBeGreaterThan(22050)

    // The clone speaks through the synthesis endpoint like any voice.
    const spoken = await post(server.base, '/text_to_speech', { model_id: 'svc_pro_v1.0', transcript: 'Hello from my clone.', voice: { mode: 'id', id: voice.voice_id } })
    expect(spoken.status).toBe(200)
    expect(decodeWav(Buffer.from(await spoken.arrayBuffer())).data.length).toBeGreaterThan(20000)

    expect((await send('DELETE', `/voices/${voice.voice_id}`)).status).toBe(204)
    expect(await errorOf(await send('GET', `/voices/${voice.voice_id}`))).toEqual({ status: 404, code: 'VOICE_NOT_FOUND' })
    const gone = await post(server.base, '/text_to_speech', { model_id: 'svc_pro_v1.0', transcript: 'Hello.', voice: { mode: 'id', id: voice.voice_id } })
    expect(await errorOf(gone)).toEqual({ status: 404, code: 'VOICE_NOT_FOUND' })
  })

  it('answers errors with their codes and keeps nothing', async () => {
    const predefined = PREDEFINED_VOICES[0]!.record.voice_id
    expect(await errorOf(await send('PUT', `/voices/${predefined}`, { name: 'x' }))).toEqual({ status: 403, code: 'VOICE_READ_ONLY' })
    expect(await errorOf(await send('DELETE', `/voices/${predefined}`))).toEqual({ status: 403, code: 'VOICE_READ_ONLY' })
    expect(await errorOf(await send('GET', '/voices/nope/preview'))).toEqual({ status: 404, code: 'VOICE_NOT_FOUND' })
    expect(await errorOf(await send('POST', '/voices/batch', {}))).toEqual({ status: 400, code: 'INVALID_REQUEST' })
    expect(await errorOf(await send('POST', '/voices/clone', { name: 'x' }))).toEqual({ status: 400, code: 'INVALID_REQUEST' })
    expect(await errorOf(await send('POST', '/voices/clone', cloneForm({ name: 'x', language: 'en' })))).toEqual({ status: 400, code: 'INVALID_REQUEST' })
    const notAudio = cloneForm({ name: 'x', language: 'en' }, Buffer.from('not audio'.repeat(50)))
    expect(await errorOf(await send('POST', '/voices/clone', notAudio))).toEqual({ status: 400, code: 'UNSUPPORTED_AUDIO' })
    const truncated = cloneForm({ name: 'x', language: 'en' }, MP3_SAMPLE.subarray(0, 9000))  // its Xing header says 6.2 s
    expect(await errorOf(await send('POST', '/voices/clone', truncated))).toEqual({ status: 400, code: 'UNSUPPORTED_AUDIO' })
    const huge = await send('POST', '/voices/clone', cloneForm({ name: 'x', language: 'en' }, Buffer.alloc(200 * 1024 * 1024)))
    expect(huge.status).toBe(413)
    expect(((await (await post(server.base, '/voices', { voice_type: 'CUSTOM' })).json()) as { voices: unknown[] }).voices).toEqual([])
  })
})
