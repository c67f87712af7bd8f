/**
 * The OpenAI dialect: `POST /v1/audio/speech` and the listings OpenAI-compatible clients read. A
 * DialectDefinition of ../index.ts (checked where DIALECTS lists it; importing its type here
 * would be an import cycle).
 */
import { catalogRoutes } from './catalog.js'
import { nameTables, openAiOptionsSchema, type OpenAiOptions } from './mapping.js'
import { speechRoute } from './speech.js'

export const OPENAI = {
  name: 'openai',
  options: openAiOptionsSchema,
  mount: (options: OpenAiOptions) => {
    const tables = nameTables(options)
    return { routes: [speechRoute(tables), ...catalogRoutes(tables)], realtime: [] }
  },
}
