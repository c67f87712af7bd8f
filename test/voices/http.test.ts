import { describe, expect, it } from 'vitest'
import { createEngine, PREDEFINED_VOICES, type VoiceRecord } from '../../lib/index.js'
import { VOICE_OPERATIONS, type VoiceHttpRequest, type VoiceHttpResponse } from '../../lib/server/voices.js'
import { decodeWav } from '../helpers/audio.js'
import { MP3_SAMPLE } from '../helpers/samples.js'

const engine = await createEngine()

/** Calls an operation the way the server does: method and path matched, params taken from the path. */
async function call(method: string, url: string, request: Partial<VoiceHttpRequest> = {}): Promise<VoiceHttpResponse> {
  for (const op of VOICE_OPERATIONS) {
    if (op.method !== method) continue
    const pattern = new RegExp(`^${op.path.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`)
    const match = pattern.exec(url)
    if (!match) continue
    return op.handle(engine, { params: { ...match.groups }, body: undefined, headers: {}, signal: new AbortController().signal, ...request })
  }
  throw new Error(`no operation for ${method} ${url}`)
}

async function multipart(fields: Record<string, string>, clip?: Buffer): Promise<Partial<VoiceHttpRequest>> {
  const form = new FormData()
  if (clip) form.set('clip', new Blob([new Uint8Array(clip)], { type: 'audio/mpeg' }), 'me.mp3')
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  const encoded = new Request('http://localhost/voices/clone', { method: 'POST', body: form })
  const rawBody = Buffer.from(await encoded.arrayBuffer())
  return { rawBody, headers: { 'content-type': encoded.headers.get('content-type')!, 'content-length': String(rawBody.length) } }
}

const json = (response: VoiceHttpResponse) => ('json' in response ? response.json : undefined)

describe('voice HTTP operations', () => {
  it('clone, list, get, batch, update, preview and delete', async () => {
    const cloned = await call('POST', '/voices/clone', await multipart({ name: 'Web', language: 'en', description: 'from a form' }, MP3_SAMPLE))
    expect(cloned.status).toBe(200)
    const voice = json(cloned) as VoiceRecord
    expect(voice).toMatchObject({ name: 'Web', description: 'from a form', voice_type: 'CUSTOM', language: 'en' })

    const listed = json(await call('POST', '/voices', { body: { limit: 5, voice_type: 'CUSTOM' } })) as { voices: VoiceRecord[] }
    expect(listed.voices.map((v) => v.voice_id)).toEqual([voice.voice_id])
    expect(json(await call('GET', `/voices/${voice.voice_id}`))).toEqual(voice)

    const batch = json(await call('POST', '/voices/batch', { body: { voice_ids: [voice.voice_id, 'gone'] } }))
    expect(batch).toEqual({ voices: [voice], not_found: ['gone'] })

    const updated = json(await call('PUT', `/voices/${voice.voice_id}`, { body: { name: 'Web 2' } })) as VoiceRecord
    expect(updated.name).toBe('Web 2')

    const preview = await call('GET', `/voices/${voice.voice_id}/preview`)
    expect(preview.headers?.['content-type']).toBe('audio/wav')
    expect(decodeWav((preview as { body: Buffer }).body).data.length).toBeGreaterThan(22050)

    expect((await call('DELETE', `/voices/${voice.voice_id}`)).status).toBe(204)
    await expect(call('GET', `/voices/${voice.voice_id}`)).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
  })

  it('answers errors with their codes', async () => {
    const predefined = PREDEFINED_VOICES[0]!.record.voice_id
    await expect(call('PUT', `/voices/${predefined}`, { body: { name: 'x' } })).rejects.toMatchObject({ code: 'VOICE_READ_ONLY', status: 403 })
    await expect(call('DELETE', `/voices/${predefined}`)).rejects.toMatchObject({ code: 'VOICE_READ_ONLY', status: 403 })
    await expect(call('GET', '/voices/nope/preview')).rejects.toMatchObject({ code: 'VOICE_NOT_FOUND', status: 404 })
    await expect(call('POST', '/voices/batch', { body: {} })).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    await expect(call('POST', '/voices/clone', { body: { name: 'x' }, headers: { 'content-type': 'application/json' } }))
      .rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    await expect(call('POST', '/voices/clone', await multipart({ name: 'x', language: 'en' }))).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(call('POST', '/voices/clone', { headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(200 * 1024 * 1024) } }))
      .rejects.toMatchObject({ code: 'SAMPLE_TOO_LARGE', status: 413 })
    await expect(call('POST', '/voices/clone', await multipart({ name: 'x', language: 'en' }, Buffer.from('not audio'.repeat(50)))))
      .rejects.toMatchObject({ code: 'UNSUPPORTED_AUDIO', status: 400 })
    expect((json(await call('POST', '/voices', { body: { voice_type: 'CUSTOM' } })) as { voices: unknown[] }).voices).toEqual([])
  })
})
