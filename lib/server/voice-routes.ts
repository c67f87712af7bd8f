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
import type { Readable } from 'node:stream'
import { parseWith } from '../validation/parse.js'
import { SAMPLE_LIMITS } from '../voices/clone.js'
import { checkQuota } from '../voices/quota.js'
import { cloneRequestSchema, listVoicesSchema, voiceBatchRequestSchema, voicePatchSchema } from '../voices/schemas.js'
import { route, type AnyRoute } from './routes.js'
import { readForm, type FormBounds } from './upload.js'

const JSON_BODY_BYTES = 64 * 1024
/** The sample plus the form's other fields and boundaries. */
export const CLONE_BODY_BYTES = SAMPLE_LIMITS.maxBytes + 64 * 1024

/** The clone form: the sample in `clip`, and a few short text fields (name, description, language, gender). */
const CLONE_FORM: FormBounds = { file: 'clip', maxFileBytes: SAMPLE_LIMITS.maxBytes, tooLarge: 'SAMPLE_TOO_LARGE', maxFields: 8, maxFieldBytes: 4096 }

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
  route<Readable>({
    ...voices,
    method: 'POST',
    path: '/voices/clone',
    concurrent: true,
    upload: true,
    body: 'stream',
    maxBodyBytes: CLONE_BODY_BYTES,
    tooLarge: 'SAMPLE_TOO_LARGE',
    handle: async ({ engine, body, headers, signal, owner }) => {
      // A key at its quota is refused before its sample is read.
      if (owner) checkQuota(await engine.voices.usage(owner.id), 0, owner.quota)
      const { file, fields } = await readForm(body, headers, CLONE_FORM, signal)
      const meta = parseWith(cloneRequestSchema, fields, 'clone request')
      return { status: 200, json: await engine.voices.clone(file, meta, { signal, ...(owner && { owner }) }) }
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
