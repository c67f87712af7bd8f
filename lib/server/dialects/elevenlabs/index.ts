/**
 * The ElevenLabs dialect: its text-to-speech routes, voices and models, and its two WebSockets,
 * translated onto the service's one path (docs/dialects/elevenlabs.md). Options map ElevenLabs'
 * model ids and premade voice ids onto svc-tts's, over the default tables.
 */
import * as z from 'zod'
import { strictObject } from '../../../validation/parse.js'
import type { DialectDefinition } from '../definition.js'
import { catalogRoutes } from './catalog-routes.js'
import { DEFAULT_MODEL_MAP } from './models.js'
import { realtimeEndpoints } from './realtime.js'
import { speechRoutes } from './speech-routes.js'
import { DEFAULT_VOICE_MAP } from './voices.js'

const idMap = z.record(z.string().min(1), z.string().min(1))

export const elevenlabsOptionsSchema = strictObject({
  /** ElevenLabs model id -> svc-tts model id, over DEFAULT_MODEL_MAP. */
  models: idMap.optional(),
  /** ElevenLabs voice id -> svc-tts voice id, over DEFAULT_VOICE_MAP. */
  voices: idMap.optional(),
})

export type ElevenLabsOptions = z.output<typeof elevenlabsOptionsSchema>

export const ELEVENLABS: DialectDefinition<ElevenLabsOptions> = {
  name: 'elevenlabs',
  options: elevenlabsOptionsSchema,
  mount: (options) => {
    const tables = { models: { ...DEFAULT_MODEL_MAP, ...options.models }, voices: { ...DEFAULT_VOICE_MAP, ...options.voices } }
    return { routes: [...speechRoutes(tables), ...catalogRoutes(tables)], realtime: realtimeEndpoints(tables) }
  },
}
