/**
 * The voice management operations of the SPEC as routes (the voice list, POST /voices, is with
 * the synthesis routes in tts-routes.ts):
 *
 *   POST   /voices/clone               multipart: clip (the audio file), name, description?, language, gender?
 *   POST   /voices/batch               { voice_ids } -> { voices, not_found }
 *   GET    /voices/:voice_id           -> the voice record
 *   PUT    /voices/:voice_id           { name?, description?, language?, gender? } -> the voice record
 *   DELETE /voices/:voice_id           -> 204
 *   GET    /voices/:voice_id/preview   -> audio/wav
 */
import type { IncomingHttpHeaders } from 'node:http'
import { z } from 'zod'
import { TtsError } from '../errors.js'
import { parseWith } from '../schemas.js'
import { SAMPLE_LIMITS } from '../voices/clone.js'
import type { Route } from './routes.js'

/** The sample plus the form's other fields and boundaries. */
export const CLONE_BODY_BYTES = SAMPLE_LIMITS.maxBytes + 64 * 1024

const batchSchema = z.strictObject({ voice_ids: z.array(z.string()) })

/** The clone form: the `clip` file and its text fields. */
async function readCloneForm(body: unknown, headers: IncomingHttpHeaders): Promise<{ clip: Buffer; fields: Record<string, string> }> {
  const type = headers['content-type'] ?? ''
  if (!/^multipart\/form-data\b/i.test(type) || !Buffer.isBuffer(body)) {
    throw new TtsError('INVALID_REQUEST', 'send the sample as multipart/form-data with the audio in a field named clip')
  }
  let form: FormData
  try {
    // The platform's own multipart parser (undici, in Node itself).
    form = await new Response(new Blob([new Uint8Array(body)]), { headers: { 'content-type': type } }).formData()
  } catch (cause) {
    throw new TtsError('INVALID_REQUEST', 'the multipart form could not be read', { cause })
  }
  const clip = form.get('clip')
  if (!(clip instanceof Blob)) throw new TtsError('INVALID_REQUEST', 'the form has no file in a field named clip')
  const fields: Record<string, string> = {}
  for (const [key, value] of form) if (key !== 'clip' && typeof value === 'string') fields[key] = value
  return { clip: Buffer.from(await clip.arrayBuffer()), fields }
}

const voiceRoute = { scope: 'voices', versionRequired: false } as const

export const VOICE_ROUTES: readonly Route[] = [
  {
    ...voiceRoute,
    method: 'POST',
    path: '/voices/clone',
    concurrent: true,  // decoding, analysis and the fit's calibration renders are real work
    rawBody: true,
    maxBodyBytes: CLONE_BODY_BYTES,
    handle: async ({ engine, body, headers, signal }) => {
      const { clip, fields } = await readCloneForm(body, headers)
      return { status: 200, json: await engine.voices.clone(clip, fields, { signal }) }
    },
  },
  {
    ...voiceRoute,
    method: 'POST',
    path: '/voices/batch',
    concurrent: false,
    handle: async ({ engine, body }) => {
      const { voice_ids } = parseWith(batchSchema, body, 'voice batch request')
      return { status: 200, json: await engine.voices.getBatch(voice_ids) }
    },
  },
  {
    ...voiceRoute,
    method: 'GET',
    path: '/voices/:voice_id',
    concurrent: false,
    handle: async ({ engine, params }) => ({ status: 200, json: await engine.voices.get(params.voice_id ?? '') }),
  },
  {
    ...voiceRoute,
    method: 'PUT',
    path: '/voices/:voice_id',
    concurrent: false,
    handle: async ({ engine, params, body }) => ({ status: 200, json: await engine.voices.update(params.voice_id ?? '', body ?? {}) }),
  },
  {
    ...voiceRoute,
    method: 'DELETE',
    path: '/voices/:voice_id',
    concurrent: false,
    handle: async ({ engine, params }) => {
      await engine.voices.delete(params.voice_id ?? '')
      return { status: 204, body: Buffer.alloc(0) }
    },
  },
  {
    ...voiceRoute,
    method: 'GET',
    path: '/voices/:voice_id/preview',
    concurrent: true,
    handle: async ({ engine, params, signal }) => ({
      status: 200,
      headers: { 'content-type': 'audio/wav' },
      body: await engine.voices.preview(params.voice_id ?? '', { signal }),
    }),
  },
]
