/**
 * The Cartesia dialect: `POST /tts/bytes`, `POST /tts/sse`, the `/tts/websocket` realtime
 * endpoint, and `GET /voices` / `GET /voices/:voice_id` for requests that carry `Cartesia-Version`.
 * Its option `models` maps Cartesia's model ids to svc-tts's (merged over DEFAULT_MODELS).
 */
import * as z from 'zod'
import { strictObject } from '../../../validation/parse.js'
import type { DialectDefinition } from '../definition.js'
import { DEFAULT_MODELS } from './models.js'
import { cartesiaRealtime } from './realtime.js'
import { cartesiaTtsRoutes } from './tts-routes.js'
import { CARTESIA_VOICE_ROUTES } from './voice-routes.js'

export const cartesiaOptionsSchema = strictObject({
  /** Cartesia model id to svc-tts model id, over the defaults (docs/dialects/cartesia.md). */
  models: z.record(z.string().min(1), z.string().min(1)).optional(),
})

export type CartesiaOptions = z.output<typeof cartesiaOptionsSchema>

export const CARTESIA: DialectDefinition<CartesiaOptions> = {
  name: 'cartesia',
  options: cartesiaOptionsSchema,
  mount: ({ models }) => {
    const table = { ...DEFAULT_MODELS, ...models }
    return { routes: [...cartesiaTtsRoutes(table), ...CARTESIA_VOICE_ROUTES], realtime: [cartesiaRealtime(table)] }
  },
}
