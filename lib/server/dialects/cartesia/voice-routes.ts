/**
 * `GET /voices` and `GET /voices/:voice_id` in Cartesia's shapes. `GET /voices/:voice_id` is the
 * SPEC's path too: these routes serve the requests that carry `Cartesia-Version` (every Cartesia
 * client sends it), the SPEC's the rest; they use the SPEC's parameter name, since routes sharing a
 * path must have the same one.
 *
 * The list is paginated as the 4.x SDK reads it (`{ data, has_more, next_page }`, the next page
 * asked with `starting_after`: the id of a page's last voice, which is the engine's cursor), or a
 * plain array for clients older than the Cartesia-Version that introduced pages (2025-04-16).
 */
import type { IncomingHttpHeaders } from 'node:http'
import * as z from 'zod'
import { TtsError } from '../../../errors.js'
import { parseWith } from '../../../validation/parse.js'
import type { VoiceRecord } from '../../../voices/types.js'
import { header } from '../../dialect.js'
import { route, type AnyRoute } from '../../routes.js'
import { CARTESIA_DIALECT, sentByCartesiaClient } from './dialect.js'

const PAGINATED_SINCE = '2025-04-16'

const GENDERS = { masculine: 'Male', feminine: 'Female' } as const

const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  starting_after: z.string().min(1).max(200).optional(),
  ending_before: z.string().optional(),
  gender: z.enum(['masculine', 'feminine', 'gender_neutral']).optional(),
  is_owner: z.enum(['true', 'false']).optional(),
  q: z.string().optional(),
})

/** A voice as Cartesia's `Voice`: a cloned voice is the caller's own, a predefined one public. */
function cartesiaVoice(voice: VoiceRecord) {
  const own = voice.voice_type === 'CUSTOM'
  return {
    id: voice.voice_id,
    name: voice.name,
    description: voice.description,
    language: voice.language,
    locales: [{ locale: voice.language, is_native: true }],
    gender: voice.gender === 'Male' ? 'masculine' : voice.gender === 'Female' ? 'feminine' : null,
    created_at: voice.created_at,
    is_owner: own,
    is_public: !own,
    access: own ? 'private' : 'public',
    visibility: own ? 'owner' : 'all',
    tagline: '',
    preview_file_url: null,
  }
}

function paginated(headers: IncomingHttpHeaders): boolean {
  return (header(headers, 'cartesia-version') ?? PAGINATED_SINCE) >= PAGINATED_SINCE
}

const voices = { dialect: CARTESIA_DIALECT, scope: 'voices', versionRequired: false, concurrent: false, claims: sentByCartesiaClient } as const

export const CARTESIA_VOICE_ROUTES: readonly AnyRoute[] = [
  route({
    ...voices,
    method: 'GET',
    path: '/voices',
    handle: async ({ engine, query, headers }) => {
      const options = parseWith(listQuerySchema, Object.fromEntries(query), 'Cartesia voice list query')
      if (options.ending_before !== undefined) throw new TtsError('INVALID_REQUEST', 'ending_before: paging backwards is not supported; use starting_after')
      if (options.q !== undefined) throw new TtsError('INVALID_REQUEST', 'q: searching voices is not supported; filter by gender or is_owner')
      // A gender-neutral voice is one whose gender is not known, which no predefined voice is: none is listed.
      if (options.gender === 'gender_neutral') return { status: 200, json: paginated(headers) ? { data: [], has_more: false, next_page: null } : [] }
      const page = await engine.voices.list({
        ...(options.limit !== undefined && { limit: options.limit }),
        ...(options.starting_after !== undefined && { cursor: options.starting_after }),
        ...(options.gender !== undefined && { gender: GENDERS[options.gender] }),
        ...(options.is_owner === 'true' && { voice_type: 'CUSTOM' as const }),
      })
      const data = page.voices.map(cartesiaVoice)
      return { status: 200, json: paginated(headers) ? { data, has_more: page.next_cursor !== null, next_page: page.next_cursor } : data }
    },
  }),
  route({
    ...voices,
    method: 'GET',
    path: '/voices/:voice_id',
    handle: async ({ engine, params }) => ({ status: 200, json: cartesiaVoice(await engine.voices.get(params.voice_id ?? '')) }),
  }),
]
