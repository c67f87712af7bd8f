/** The SPEC's status and text-to-speech operations, as routes. */
import { CONTENT_TYPES, type Container, type OutputFormat } from '../audio/format.js'
import { parseOutputFormat, parseWith, SYNTHESIS_FIELD_CODES, synthesisRequestSchema } from '../schemas.js'
import type { Route, RouteContext } from './routes.js'
import { VOICE_OPERATIONS } from './voices.js'

export const WEBSOCKET_PATH = '/text_to_speech/websocket/ws'

function contentType(format: OutputFormat): string {
  return CONTENT_TYPES[format.container]
}

/** Validates the body (400 with the issue path), charges its characters, and resolves its output format. */
async function synthesisBody(context: RouteContext, defaultContainer: Container) {
  const request = parseWith(synthesisRequestSchema, context.body, 'synthesis request', SYNTHESIS_FIELD_CODES)
  const format = parseOutputFormat(request.output_format, defaultContainer)
  await context.charge(request.transcript.length)
  return { request, format }
}

/** The first chunk is awaited before answering, so a request that fails early gets its real status. */
async function startStream(stream: AsyncGenerator<Buffer>): Promise<AsyncIterable<Buffer>> {
  const first = await stream.next()
  return (async function* () {
    if (first.done) return
    yield first.value
    yield* stream
  })()
}

export const TTS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/',
    scope: null,
    versionRequired: true,
    concurrent: false,
    handle: async ({ version }) => ({ status: 200, json: { status: 'ok', version } }),
  },
  {
    method: 'POST',
    path: '/text_to_speech',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    handle: async (context) => {
      const { request, format } = await synthesisBody(context, 'wav')
      const audio = await context.engine.synthesize({ ...request, output_format: format }, { signal: context.signal })
      return { status: 200, headers: { 'content-type': contentType(format) }, body: audio }
    },
  },
  {
    method: 'POST',
    path: '/text_to_speech/streaming',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    handle: async (context) => {
      const { request, format } = await synthesisBody(context, 'raw')
      const stream = context.engine.stream({ ...request, output_format: format }, { signal: context.signal })
      return { status: 200, headers: { 'content-type': contentType(format) }, stream: await startStream(stream) }
    },
  },
  {
    method: 'POST',
    path: '/text_to_speech/with_timestamps',
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    handle: async (context) => {
      const { request, format } = await synthesisBody(context, 'raw')
      return { status: 200, json: await context.engine.synthesizeWithTimestamps({ ...request, output_format: format }, { signal: context.signal }) }
    },
  },
]

/** The voice operations (lib/server/voices.ts) as routes: the `voices` scope; clone and preview hold a concurrency slot. */
export const VOICE_ROUTES: readonly Route[] = VOICE_OPERATIONS.map((operation) => ({
  method: operation.method,
  path: operation.path,
  scope: 'voices',
  versionRequired: false,
  concurrent: operation.path === '/voices/clone' || operation.path.endsWith('/preview'),
  rawBody: operation.rawBody,
  maxBodyBytes: Math.max(1, operation.maxBodyBytes),  // 0 (no body) is not a limit every framework takes
  handle: ({ engine, params, body, rawBody, headers, signal }) => operation.handle(engine, { params, body, headers, signal, ...(rawBody && { rawBody }) }),
}))
