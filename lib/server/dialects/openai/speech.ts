/**
 * `POST /v1/audio/speech`: OpenAI's body checked by its own schema (OpenAI-shaped 400s), translated
 * to a SPEC synthesis request, which the engine's gate checks, and streamed as it is made, as
 * audio or as OpenAI's server-sent events.
 */
import * as z from 'zod'
import { speedSchema, type SynthesisRequest } from '../../../engine/requests.js'
import { route, type AnyRoute, type RouteContext, type RouteResponse } from '../../routes.js'
import { startStream } from '../../tts-routes.js'
import { OPENAI_DIALECT } from './errors.js'
import { contentTypeOf, outputFormatOf, RESPONSE_FORMATS, type NameTables } from './mapping.js'
import { voiceSelectorOf } from './voice-mix.js'

/** OpenAI's own limit on `input`. */
export const MAX_INPUT_CHARACTERS = 4096

const SPEED_MIN = speedSchema.minValue ?? 0.5
const SPEED_MAX = speedSchema.maxValue ?? 2
const speedRange = `svc-tts speaks from ${SPEED_MIN} to ${SPEED_MAX} times a voice's own rate; OpenAI's 0.25 to 4 beyond that is not reached`

/**
 * OpenAI's body. Fields it does not name (`instructions`, `stream`, `lang_code`...) are accepted
 * and dropped, as OpenAI-compatible servers do; null stands for a field left out.
 */
export const speechRequestSchema = z.object({
  model: z.string().min(1),
  input: z.string().min(1, 'input must not be empty').max(MAX_INPUT_CHARACTERS, `input is longer than OpenAI's ${MAX_INPUT_CHARACTERS} characters`),
  voice: z.union([z.string().min(1), z.object({ id: z.string().min(1) })], { error: 'voice must be a voice name or id, or { "id": ... }' }),
  response_format: z
    .enum(RESPONSE_FORMATS, { error: `response_format must be one of ${RESPONSE_FORMATS.join(', ')} (aac is not supported: svc-tts has no AAC encoder)` })
    .nullish(),
  speed: z.number({ error: 'speed must be a number' }).min(SPEED_MIN, speedRange).max(SPEED_MAX, speedRange).nullish(),
  stream_format: z.enum(['audio', 'sse'], { error: 'stream_format must be audio or sse' }).nullish(),
})

export type SpeechRequest = z.output<typeof speechRequestSchema>

/** Past OpenAI's 4096 characters, each escaped as JSON (`\uXXXX`), and the other fields. */
const MAX_BODY_BYTES = 64 * 1024

/** OpenAI's `speech.audio.delta` events, one per piece of audio, then `speech.audio.done`; usage counts characters, what svc-tts charges. */
async function* serverSentEvents(audio: AsyncIterable<Buffer>, characters: number): AsyncGenerator<Buffer> {
  const event = (data: unknown) => Buffer.from(`data: ${JSON.stringify(data)}\n\n`)
  for await (const chunk of audio) yield event({ type: 'speech.audio.delta', audio: chunk.toString('base64') })
  yield event({ type: 'speech.audio.done', usage: { input_tokens: characters, output_tokens: 0, total_tokens: characters } })
}

export function speechRoute(tables: NameTables): AnyRoute {
  return route<SpeechRequest>({
    method: 'POST',
    path: '/v1/audio/speech',
    dialect: OPENAI_DIALECT,
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: true,
    body: { schema: speechRequestSchema, what: 'OpenAI speech request', fieldCodes: { response_format: 'FORMAT_NOT_RECOGNIZED' } },
    maxBodyBytes: MAX_BODY_BYTES,
    handle: async ({ engine, body, charge, signal }: RouteContext<SpeechRequest>): Promise<RouteResponse> => {
      const format = body.response_format ?? 'mp3'
      const modelId = tables.models.get(body.model) ?? body.model
      const request: SynthesisRequest<string> = {
        model_id: modelId,
        transcript: body.input,
        voice: await voiceSelectorOf(engine, body.voice, modelId, tables.voices),
        output_format: outputFormatOf(format),
        speed: body.speed ?? 1,
      }
      await charge(body.input.length)
      const audio = await startStream(engine.stream(request, { signal }))
      if (body.stream_format === 'sse') {
        return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, stream: serverSentEvents(audio, body.input.length) }
      }
      return { status: 200, headers: { 'content-type': contentTypeOf(format) }, stream: audio }
    },
  })
}
