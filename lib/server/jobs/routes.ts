/**
 * The jobs' HTTP operations: POST /jobs answers at once with the queued job; GET /jobs/:job_id
 * its state and progress; GET /jobs/:job_id/audio its audio as it is made; DELETE cancels it.
 * A job is charged to its key's characters when it is made, and counts as one request.
 */
import { SYNTHESIS_FIELD_CODES, synthesisRequestSchema, type ParsedSynthesisRequest } from '../../engine/requests.js'
import { TtsError } from '../../errors.js'
import { route, type AnyRoute } from '../routes.js'
import { startStream } from '../tts-routes.js'
import type { JobService } from './jobs.js'

/** JSON spends at most 6 bytes on a UTF-16 character (a \u escape). */
const JSON_BYTES_PER_CHARACTER = 6
const BODY_MARGIN_BYTES = 64 * 1024

export function jobRoutes(jobs: JobService): AnyRoute[] {
  const { maxCharacters } = jobs.options
  const keyOf = (principal: { keyId: string } | undefined) => principal!.keyId
  return [
    route<ParsedSynthesisRequest>({
      method: 'POST',
      path: '/jobs',
      scope: 'text_to_speech',
      versionRequired: false,
      concurrent: false,
      body: { schema: synthesisRequestSchema, what: 'synthesis request', fieldCodes: SYNTHESIS_FIELD_CODES },
      maxBodyBytes: maxCharacters * JSON_BYTES_PER_CHARACTER + BODY_MARGIN_BYTES,
      handle: async ({ body, principal, charge, engine, signal }) => {
        if (body.transcript.length > maxCharacters) {
          throw new TtsError('TRANSCRIPT_TOO_LONG', `a job's transcript is at most ${maxCharacters} characters`, { extra: { max_characters: maxCharacters } })
        }
        // A job is spoken later, outside this request: a token's binding is checked now, on its voice and model resolved under the request's signal.
        if (principal?.bound) {
          const { transcript: _, ...speaking } = body
          await engine.resolve(speaking, { signal })
        }
        await charge(body.transcript.length)
        const status = await jobs.submit(keyOf(principal), body)
        return { status: 202, headers: { location: `/jobs/${status.job_id}` }, json: status }
      },
    }),
    route({
      method: 'GET',
      path: '/jobs/:job_id',
      scope: 'text_to_speech',
      versionRequired: false,
      concurrent: false,
      handle: async ({ params, principal }) => ({ status: 200, json: await jobs.status(keyOf(principal), params.job_id!) }),
    }),
    route({
      method: 'GET',
      path: '/jobs/:job_id/audio',
      scope: 'text_to_speech',
      versionRequired: false,
      concurrent: false,
      handle: async ({ params, principal, signal }) => {
        const keyId = keyOf(principal)
        const type = await jobs.contentType(keyId, params.job_id!)
        return { status: 200, headers: { 'content-type': type }, stream: await startStream(jobs.audio(keyId, params.job_id!, signal)) }
      },
    }),
    route({
      method: 'DELETE',
      path: '/jobs/:job_id',
      scope: 'text_to_speech',
      versionRequired: false,
      concurrent: false,
      handle: async ({ params, principal }) => ({ status: 200, json: await jobs.cancel(keyOf(principal), params.job_id!) }),
    }),
  ]
}
