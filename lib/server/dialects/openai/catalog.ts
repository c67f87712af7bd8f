/**
 * What OpenAI-compatible clients list: `GET /v1/models` and `/v1/models/{id}` (OpenAI's), and
 * `GET /v1/audio/voices` and `/v1/audio/models` (what self-hosted servers offer and Open WebUI
 * reads). The models are OpenAI's names of the table and the engine's own ids; the voices are
 * OpenAI's names, then the engine's library (cloned voices included).
 *
 * `GET /v1/models` is ElevenLabs' path too: these routes claim no request, so they serve every
 * request that the ElevenLabs routes do not claim (those with an `xi-api-key` header).
 */
import * as z from 'zod'
import type { Engine } from '../../../engine/engine.js'
import { TtsError } from '../../../errors.js'
import { parseWith } from '../../../validation/parse.js'
import { route, type AnyRoute } from '../../routes.js'
import { OPENAI_DIALECT } from './errors.js'
import type { NameTables } from './mapping.js'
import { libraryVoices } from '../library-voices.js'

/** When svc-tts's models were published (the predefined voices' date), in OpenAI's seconds. */
const CREATED = Date.parse('2026-11-22T00:00:00.000Z') / 1000

const MAX_VOICES = 1000
const voiceListQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(MAX_VOICES).default(MAX_VOICES) })

function modelIds(engine: Engine<string>, tables: NameTables): string[] {
  return [...new Set([...tables.models.keys(), ...engine.models.list().map((model) => model.id)])]
}

function modelObject(id: string) {
  return { id, object: 'model', created: CREATED, owned_by: 'svc-tts' }
}

const openAi = { dialect: OPENAI_DIALECT, versionRequired: false, concurrent: false } as const

export function catalogRoutes(tables: NameTables): AnyRoute[] {
  return [
    route({
      ...openAi,
      method: 'GET',
      path: '/v1/models',
      scope: 'text_to_speech',
      handle: async ({ engine }) => ({ status: 200, json: { object: 'list', data: modelIds(engine, tables).map(modelObject) } }),
    }),
    route({
      ...openAi,
      method: 'GET',
      path: '/v1/models/:model',
      scope: 'text_to_speech',
      handle: async ({ engine, params }) => {
        const id = params.model ?? ''
        if (!modelIds(engine, tables).includes(id)) throw new TtsError('MODEL_NOT_FOUND', `the model '${id.slice(0, 64)}' does not exist; GET /v1/models lists them`)
        return { status: 200, json: modelObject(id) }
      },
    }),
    route({
      ...openAi,
      method: 'GET',
      path: '/v1/audio/models',
      scope: 'text_to_speech',
      handle: async ({ engine }) => ({ status: 200, json: { models: modelIds(engine, tables).map((id) => ({ id })) } }),
    }),
    route({
      ...openAi,
      method: 'GET',
      path: '/v1/audio/voices',
      scope: 'voices',
      handle: async ({ engine, query }) => {
        const { limit } = parseWith(voiceListQuerySchema, Object.fromEntries(query), 'voice list query')
        const voices = [...tables.voices.keys()].slice(0, limit).map((name) => ({ id: name, name }))
        for await (const voice of libraryVoices(engine, limit - voices.length)) voices.push({ id: voice.voice_id, name: voice.name })
        return { status: 200, json: { voices } }
      },
    }),
  ]
}
