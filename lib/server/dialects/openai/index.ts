/** The OpenAI dialect: `POST /v1/audio/speech` and the listings OpenAI-compatible clients read. */
import type { DialectDefinition } from '../definition.js'
import { catalogRoutes } from './catalog.js'
import { nameTables, openAiOptionsSchema, type OpenAiOptions } from './mapping.js'
import { speechRoute } from './speech.js'

export const OPENAI: DialectDefinition<OpenAiOptions> = {
  name: 'openai',
  options: openAiOptionsSchema,
  mount: (options) => {
    const tables = nameTables(options)
    return { routes: [speechRoute(tables), ...catalogRoutes(tables)], realtime: [] }
  },
}
