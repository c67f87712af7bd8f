/** The SPEC's status and text-to-speech operations, as routes. */
import { CONTENT_TYPES, type Container } from '../audio/format.js'
import { formatIn, SYNTHESIS_FIELD_CODES, synthesisRequestSchema, type ParsedSynthesisRequest } from '../engine/requests.js'
import { joinedParts } from './joined-parts.js'
import { route, type AnyRoute, type RouteContext } from './routes.js'

export const WEBSOCKET_PATH = '/text_to_speech/websocket/ws'

const synthesisBody = { schema: synthesisRequestSchema, what: 'synthesis request', fieldCodes: SYNTHESIS_FIELD_CODES }

/** Charges the request's characters; its content type by the call's default container. */
async function charged({ body, charge }: RouteContext<ParsedSynthesisRequest>, defaultContainer: Container): Promise<string> {
  await charge(body.transcript.length)
  return CONTENT_TYPES[formatIn(body.output_format, defaultContainer).container]
}

/**
 * The first chunk is awaited before answering, so a request that fails early gets its real status;
 * it goes out alone, at once, and the chunks after it in fewer, larger writes.
 */
export async function startStream(stream: AsyncGenerator<Buffer>): Promise<AsyncIterable<Buffer>> {
  const first = await stream.next()
  return (async function* () {
    if (first.done) return
    yield first.value
    yield* joinedParts(stream)
  })()
}

export const TTS_ROUTES: readonly AnyRoute[] = [
  route({
    method: 'GET',
    path: '/',
    scope: null,
    versionRequired: true,
    concurrent: false,
    handle: async ({ version }) => ({ status: 200, json: { status: 'ok', version } }),
  }),
  route<ParsedSynthesisRequest>({
    method: 'POST',
    path: '/text_to_speech',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    body: synthesisBody,
    handle: async (context) => {
      const type = await charged(context, 'wav')
      return { status: 200, headers: { 'content-type': type }, body: await context.engine.synthesize(context.body, { signal: context.signal }) }
    },
  }),
  route<ParsedSynthesisRequest>({
    method: 'POST',
    path: '/text_to_speech/streaming',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    body: synthesisBody,
    handle: async (context) => {
      const type = await charged(context, 'raw')
      return { status: 200, headers: { 'content-type': type }, stream: await startStream(context.engine.stream(context.body, { signal: context.signal })) }
    },
  }),
  route<ParsedSynthesisRequest>({
    method: 'POST',
    path: '/text_to_speech/with_timestamps',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    body: synthesisBody,
    handle: async (context) => {
      await charged(context, 'raw')
      return { status: 200, json: await context.engine.synthesizeWithTimestamps(context.body, { signal: context.signal }) }
    },
  }),
]
