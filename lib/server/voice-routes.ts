/**
 * The voice API over HTTP, as routes (the `voices` scope; clone and preview hold a concurrency
 * slot). Handlers throw TtsErrors; the service answers them with its usual error body.
 *
 *   POST   /voices                     { limit?, cursor?, language?, gender?, voice_type? } -> { voices, next_cursor }
 *   POST   /voices/clone               multipart: clip (the audio file), name, description?, language, gender?
 *   POST   /voices/batch               { voice_ids } -> { voices, not_found }
 *   GET    /voices/:voice_id           -> the voice record
 *   PUT    /voices/:voice_id           { name?, description?, language?, gender? } -> the voice record
 *   DELETE /voices/:voice_id           -> 204
 *   GET    /voices/:voice_id/preview   -> audio/wav
 */
import type { IncomingHttpHeaders } from 'node:http'
import { TtsError } from '../errors.js'
import { SAMPLE_LIMITS } from '../voices/clone.js'
import { parseWith } from '../validation/parse.js'
import { cloneRequestSchema, listVoicesSchema, voiceBatchRequestSchema, voicePatchSchema } from '../voices/schemas.js'
import { route, type AnyRoute } from './routes.js'

const JSON_BODY_BYTES = 64 * 1024
/** The sample plus the form's other fields and boundaries. */
export const CLONE_BODY_BYTES = SAMPLE_LIMITS.maxBytes + 64 * 1024

function tooLarge(bytes: number | string): TtsError {
  return new TtsError('SAMPLE_TOO_LARGE', `the upload is ${bytes} bytes; a voice sample may be at most ${SAMPLE_LIMITS.maxBytes}`)
}

/** The clone form: the `clip` file and its text fields. */
async function readCloneForm(body: Buffer | undefined, headers: IncomingHttpHeaders): Promise<{ clip: Buffer; fields: Record<string, string> }> {
  const type = headers['content-type'] ?? ''
  if (!/^multipart\/form-data\b/i.test(type) || !body) {
    throw new TtsError('INVALID_REQUEST', 'send the sample as multipart/form-data with the audio in a field named clip')
  }
  if (body.length > CLONE_BODY_BYTES) throw tooLarge(body.length)
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

const voices = { scope: 'voices', versionRequired: false } as const

export const VOICE_ROUTES: readonly AnyRoute[] = [
  route({
    ...voices,
    method: 'POST',
    path: '/voices',
    concurrent: false,
    body: { schema: listVoicesSchema.default({}), what: 'voice list options' },
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async ({ engine, body }) => ({ status: 200, json: await engine.voices.list(body) }),
  }),
  route<Buffer | undefined>({
    ...voices,
    method: 'POST',
    path: '/voices/clone',
    concurrent: true,
    body: 'raw',
    maxBodyBytes: CLONE_BODY_BYTES,
    handle: async ({ engine, body, headers, signal }) => {
      const { clip, fields } = await readCloneForm(body, headers)
      return { status: 200, json: await engine.voices.clone(clip, parseWith(cloneRequestSchema, fields, 'clone request'), { signal }) }
    },
  }),
  route({
    ...voices,
    method: 'POST',
    path: '/voices/batch',
    concurrent: false,
    body: { schema: voiceBatchRequestSchema, what: 'voice batch request' },
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async ({ engine, body }) => ({ status: 200, json: await engine.voices.getBatch(body.voice_ids) }),
  }),
  route({
    ...voices,
    method: 'GET',
    path: '/voices/:voice_id',
    concurrent: false,
    handle: async ({ engine, params }) => ({ status: 200, json: await engine.voices.get(params.voice_id ?? '') }),
  }),
  route({
    ...voices,
    method: 'PUT',
    path: '/voices/:voice_id',
    concurrent: false,
    body: { schema: voicePatchSchema.default({}), what: 'voice update' },
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async ({ engine, params, body }) => ({ status: 200, json: await engine.voices.update(params.voice_id ?? '', body) }),
  }),
  route({
    ...voices,
    method: 'DELETE',
    path: '/voices/:voice_id',
    concurrent: false,
    handle: async ({ engine, params }) => {
      await engine.voices.delete(params.voice_id ?? '')
      return { status: 204, body: Buffer.alloc(0) }
    },
  }),
  route({
    ...voices,
    method: 'GET',
    path: '/voices/:voice_id/preview',
    concurrent: true,
    handle: async ({ engine, params, signal }) => ({
      status: 200,
      headers: { 'content-type': 'audio/wav', 'cache-control': 'no-cache' },
      body: await engine.voices.preview(params.voice_id ?? '', { signal }),
    }),
  }),
]
