/**
 * ElevenLabs' catalogue: GET /v1/voices, /v2/voices (paged), /v1/voices/{voice_id} and /v1/models.
 * `GET /v1/models` is OpenAI's path too: this route claims the requests that carry `xi-api-key`,
 * and OpenAI's (the fallback) serves the rest.
 */
import { TtsError } from '../../../errors.js'
import { header } from '../../dialect.js'
import { route, type AnyRoute } from '../../routes.js'
import { ELEVENLABS_DIALECT } from './errors.js'
import { listModels, type ModelMap } from './models.js'
import { allVoices } from '../library-voices.js'
import { svcVoiceId, voiceObject, type VoiceMap } from './voices.js'

const catalog = { dialect: ELEVENLABS_DIALECT, scope: 'voices', versionRequired: false, concurrent: false } as const

const MAX_PAGE_SIZE = 100

/** A v2 page: `page_size` (1-100, default 10) and the `next_page_token` of the page before. */
function page(query: URLSearchParams): { size: number; offset: number } {
  const size = Number(query.get('page_size') ?? 10)
  const token = query.get('next_page_token')
  const offset = token === null ? 0 : Number(token)
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new TtsError('INVALID_REQUEST', `page_size must be an integer from 1 to ${MAX_PAGE_SIZE}`)
  if (!Number.isInteger(offset) || offset < 0) throw new TtsError('INVALID_REQUEST', 'next_page_token is not one this server gave')
  return { size, offset }
}

export function catalogRoutes(tables: { models: ModelMap; voices: VoiceMap }): AnyRoute[] {
  return [
    route({
      ...catalog,
      method: 'GET',
      path: '/v1/voices',
      handle: async ({ engine }) => ({ status: 200, json: { voices: (await allVoices(engine)).map(voiceObject) } }),
    }),
    route({
      ...catalog,
      method: 'GET',
      path: '/v2/voices',
      handle: async ({ engine, query }) => {
        const { size, offset } = page(query)
        const voices = await allVoices(engine)
        const next = offset + size
        return {
          status: 200,
          json: { voices: voices.slice(offset, next).map(voiceObject), has_more: next < voices.length, total_count: voices.length, next_page_token: next < voices.length ? String(next) : null },
        }
      },
    }),
    route({
      ...catalog,
      method: 'GET',
      path: '/v1/voices/:voice_id',
      handle: async ({ engine, params }) => ({ status: 200, json: voiceObject(await engine.voices.get(svcVoiceId(tables.voices, params.voice_id ?? ''))) }),
    }),
    route({
      ...catalog,
      method: 'GET',
      path: '/v1/models',
      claims: (headers) => header(headers, 'xi-api-key') !== undefined,
      handle: async ({ engine }) => ({ status: 200, json: listModels(engine, tables.models) }),
    }),
  ]
}
