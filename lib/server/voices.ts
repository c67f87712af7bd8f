/**
 * The voice API over HTTP, as framework-neutral operations the service's server mounts: each has
 * a method, a path (`:voice_id` marks the parameter), and a handler from a plain request to a
 * plain response. Handlers throw TtsErrors; the server answers them with its usual error body.
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
import { z } from 'zod'
import type { Engine } from '../engine.js'
import { TtsError } from '../errors.js'
import { cloneRequestSchema, listVoicesSchema, parseWith, voicePatchSchema } from '../schemas.js'
import { SAMPLE_LIMITS } from '../voices/clone.js'

export interface VoiceHttpRequest {
  /** Path parameters: `voice_id` on the /voices/:voice_id routes. */
  params: Record<string, string>
  /** The parsed JSON body (list, batch, update). */
  body: unknown
  /** The body as received: the clone operation reads its multipart form from it. */
  rawBody?: Buffer
  headers: IncomingHttpHeaders
  /** Aborted when the client goes away. */
  signal: AbortSignal
}

export type VoiceHttpResponse =
  | { status: number; headers?: Record<string, string>; json: unknown }
  | { status: number; headers?: Record<string, string>; body: Buffer }

export interface VoiceOperation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  /** The handler reads `rawBody` (multipart), not a JSON body. */
  rawBody: boolean
  /** Largest body accepted; a larger one is answered 413 before it is read. */
  maxBodyBytes: number
  handle(engine: Engine<string>, request: VoiceHttpRequest): Promise<VoiceHttpResponse>
}

const JSON_BODY_BYTES = 64 * 1024
/** The sample plus the form's other fields and boundaries. */
export const CLONE_BODY_BYTES = SAMPLE_LIMITS.maxBytes + 64 * 1024

const batchSchema = z.strictObject({ voice_ids: z.array(z.string()) })

function tooLarge(bytes: number | string): TtsError {
  return new TtsError('SAMPLE_TOO_LARGE', `the upload is ${bytes} bytes; a voice sample may be at most ${SAMPLE_LIMITS.maxBytes}`)
}

/** The clone form: the `clip` file and its text fields. */
async function readCloneForm(request: VoiceHttpRequest): Promise<{ clip: Buffer; fields: Record<string, string> }> {
  const declared = Number(request.headers['content-length'] ?? 0)
  if (declared > CLONE_BODY_BYTES) throw tooLarge(declared)
  const type = request.headers['content-type'] ?? ''
  if (!/^multipart\/form-data\b/i.test(type) || !request.rawBody) {
    throw new TtsError('INVALID_REQUEST', 'send the sample as multipart/form-data with the audio in a field named clip')
  }
  if (request.rawBody.length > CLONE_BODY_BYTES) throw tooLarge(request.rawBody.length)
  let form: FormData
  try {
    // The platform's own multipart parser (undici, in Node itself).
    form = await new Response(new Blob([new Uint8Array(request.rawBody)]), { headers: { 'content-type': type } }).formData()
  } catch (cause) {
    throw new TtsError('INVALID_REQUEST', 'the multipart form could not be read', { cause })
  }
  const clip = form.get('clip')
  if (!(clip instanceof Blob)) throw new TtsError('INVALID_REQUEST', 'the form has no file in a field named clip')
  const fields: Record<string, string> = {}
  for (const [key, value] of form) if (key !== 'clip' && typeof value === 'string') fields[key] = value
  return { clip: Buffer.from(await clip.arrayBuffer()), fields }
}

export const VOICE_OPERATIONS: readonly VoiceOperation[] = [
  {
    method: 'POST',
    path: '/voices',
    rawBody: false,
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async (engine, { body }) => ({ status: 200, json: await engine.voices.list(parseWith(listVoicesSchema, body ?? {}, 'voice list options')) }),
  },
  {
    method: 'POST',
    path: '/voices/clone',
    rawBody: true,
    maxBodyBytes: CLONE_BODY_BYTES,
    handle: async (engine, request) => {
      const { clip, fields } = await readCloneForm(request)
      return { status: 200, json: await engine.voices.clone(clip, parseWith(cloneRequestSchema, fields, 'clone request'), { signal: request.signal }) }
    },
  },
  {
    method: 'POST',
    path: '/voices/batch',
    rawBody: false,
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async (engine, { body }) => {
      const { voice_ids } = parseWith(batchSchema, body, 'voice batch request')
      return { status: 200, json: await engine.voices.getBatch(voice_ids) }
    },
  },
  {
    method: 'GET',
    path: '/voices/:voice_id',
    rawBody: false,
    maxBodyBytes: 0,
    handle: async (engine, { params }) => ({ status: 200, json: await engine.voices.get(params.voice_id ?? '') }),
  },
  {
    method: 'PUT',
    path: '/voices/:voice_id',
    rawBody: false,
    maxBodyBytes: JSON_BODY_BYTES,
    handle: async (engine, { params, body }) => ({
      status: 200,
      json: await engine.voices.update(params.voice_id ?? '', parseWith(voicePatchSchema, body ?? {}, 'voice update')),
    }),
  },
  {
    method: 'DELETE',
    path: '/voices/:voice_id',
    rawBody: false,
    maxBodyBytes: 0,
    handle: async (engine, { params }) => {
      await engine.voices.delete(params.voice_id ?? '')
      return { status: 204, body: Buffer.alloc(0) }
    },
  },
  {
    method: 'GET',
    path: '/voices/:voice_id/preview',
    rawBody: false,
    maxBodyBytes: 0,
    handle: async (engine, { params, signal }) => ({
      status: 200,
      headers: { 'content-type': 'audio/wav', 'cache-control': 'no-cache' },
      body: await engine.voices.preview(params.voice_id ?? '', { signal }),
    }),
  },
]
