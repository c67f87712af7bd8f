/** What a dialect is to the service: its options, and the routes and realtime endpoints it mounts. */
import type * as z from 'zod'
import type { RealtimeEndpoint } from '../realtime-endpoint.js'
import type { AnyRoute } from '../routes.js'

export interface DialectMount {
  routes: readonly AnyRoute[]
  realtime: readonly RealtimeEndpoint[]
}

export interface DialectDefinition<Options> {
  name: string
  /** Its options (an object: what maps onto svc-tts's models and voices); `{}` must parse, to its defaults. */
  options: z.ZodType<Options>
  mount(options: Options): DialectMount
}
