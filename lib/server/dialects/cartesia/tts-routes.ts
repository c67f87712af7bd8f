/**
 * `POST /tts/bytes` (the audio file, streamed as it is made) and `POST /tts/sse` (the audio as
 * `chunk` events, word `timestamps` events when asked, then `done`), on the engine's streams.
 */
import { CONTENT_TYPES } from '../../../audio/format.js'
import { toAlignment } from '../../../engine/alignment.js'
import type { SynthesisRequest } from '../../../engine/requests.js'
import type { SpeechChunk } from '../../../engine/speech-session.js'
import { TtsError } from '../../../errors.js'
import { clientFacing } from '../../dialect.js'
import { route, type AnyRoute, type RouteContext } from '../../routes.js'
import { CARTESIA_DIALECT } from './dialect.js'
import { chunkEvent, doneEvent, errorEvent, timestampsEvent, wordTimestamps } from './events.js'
import type { ModelTable } from './models.js'
import { generationRequestSchema, speakingFields, type GenerationRequest } from './requests.js'

const generationBody = { schema: generationRequestSchema, what: 'Cartesia generation request' }
const synthesis = { dialect: CARTESIA_DIALECT, scope: 'text_to_speech', versionRequired: false, concurrent: true, body: generationBody } as const

/** The SPEC request a Cartesia request asks for, its characters charged. The engine's gate checks it. */
async function chargedRequest({ body, charge }: RouteContext<GenerationRequest>, models: ModelTable): Promise<SynthesisRequest<string>> {
  if (body.save) throw new TtsError('INVALID_REQUEST', 'save: storing generated audio is not supported')
  const request = { ...speakingFields(body, models), transcript: body.transcript } as SynthesisRequest<string>
  await charge(body.transcript.length)
  return request
}

/** The first item is awaited before answering, so a request that fails early gets its real status. */
async function started<T>(stream: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await stream.next()
  return (async function* () {
    if (first.done) return
    yield first.value
    yield* stream
  })()
}

function sse(event: { type: string }): Buffer {
  return Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
}

/** A speech stream as SSE events; a failure after the first chunk is an `error` event, since the status is sent. */
async function* sseEvents(chunks: AsyncGenerator<SpeechChunk>, contextId: string | undefined, timestamps: boolean): AsyncGenerator<Buffer> {
  let last = performance.now()
  try {
    for await (const chunk of chunks) {
      const now = performance.now()
      if (chunk.audio.length > 0) yield sse(chunkEvent(chunk.audio.toString('base64'), Math.round(now - last), contextId))
      if (timestamps && chunk.words.length > 0) yield sse(timestampsEvent(wordTimestamps(toAlignment(chunk.words)), contextId))
      last = now
    }
    yield sse(doneEvent(contextId))
  } catch (error) {
    yield sse(errorEvent(clientFacing(error), contextId))
  }
}

export function cartesiaTtsRoutes(models: ModelTable): AnyRoute[] {
  return [
    route<GenerationRequest>({
      ...synthesis,
      method: 'POST',
      path: '/tts/bytes',
      handle: async (context) => {
        const request = await chargedRequest(context, models)
        const audio = await started(context.engine.stream(request, { signal: context.signal }))
        return { status: 200, headers: { 'content-type': CONTENT_TYPES[context.body.output_format.container] }, stream: audio }
      },
    }),
    route<GenerationRequest>({
      ...synthesis,
      method: 'POST',
      path: '/tts/sse',
      handle: async (context) => {
        const { container } = context.body.output_format
        if (container !== 'raw') throw new TtsError('FORMAT_NOT_RECOGNIZED', `output_format.container: /tts/sse sends raw audio only, not ${container}`)
        const request = await chargedRequest(context, models)
        const chunks = await started(context.engine.speak(request, { signal: context.signal }))
        return {
          status: 200,
          headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
          stream: sseEvents(chunks, context.body.context_id ?? undefined, context.body.add_timestamps ?? false),
        }
      },
    }),
  ]
}
