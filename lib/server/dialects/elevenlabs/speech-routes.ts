/**
 * POST /v1/text-to-speech/{voice_id}[/stream][/with-timestamps]: ElevenLabs' synthesis routes on
 * the engine's calls. The text is charged, then spoken as the SPEC request it maps to; streams
 * start (first chunk awaited) before answering, so an early failure gets its real status.
 */
import type { TimedWord } from '../../../engine/alignment.js'
import { route, type AnyRoute, type RouteContext } from '../../routes.js'
import { startStream } from '../../tts-routes.js'
import { alignText, CharacterAligner, httpAlignment, SpokenAligner, timedWords, type CharTimes } from './alignment.js'
import { ELEVENLABS_DIALECT } from './errors.js'
import { parseOutputFormat } from './formats.js'
import { speechBodySchema, speechRequest, type DialectTables, type SpeechBody } from './requests.js'

const PREFIX = '/v1/text-to-speech/:voice_id'
const body = { schema: speechBodySchema, what: 'text-to-speech request' }
const synthesis = { dialect: ELEVENLABS_DIALECT, scope: 'text_to_speech', versionRequired: false, concurrent: true, body } as const

async function prepared(tables: DialectTables, context: RouteContext<SpeechBody>) {
  const format = parseOutputFormat(context.query.get('output_format'))
  const request = speechRequest(tables, context.params.voice_id ?? '', context.body, format.fields)
  await context.charge(context.body.text.length)
  return { format, request }
}

function timestamped(audioBase64: string, alignment: CharTimes, normalized: CharTimes) {
  return { audio_base64: audioBase64, alignment: httpAlignment(alignment), normalized_alignment: httpAlignment(normalized) }
}

/** One line of /stream/with-timestamps per chunk: its audio, and the characters its words close. */
async function* timestampLines(chunks: AsyncIterable<{ audio: Buffer; words: TimedWord[] }>, text: string): AsyncGenerator<Buffer> {
  const aligner = new CharacterAligner(text)
  const spoken = new SpokenAligner()
  for await (const chunk of chunks) {
    if (chunk.audio.length === 0 && chunk.words.length === 0) continue
    yield Buffer.from(JSON.stringify(timestamped(chunk.audio.toString('base64'), aligner.next(chunk.words), spoken.next(chunk.words))) + '\n')
  }
  const rest = aligner.finish()
  if (rest.chars.length > 0) yield Buffer.from(JSON.stringify(timestamped('', rest, spoken.next([]))) + '\n')
}

export function speechRoutes(tables: DialectTables): AnyRoute[] {
  return [
    route<SpeechBody>({
      ...synthesis,
      method: 'POST',
      path: PREFIX,
      handle: async (context) => {
        const { format, request } = await prepared(tables, context)
        return { status: 200, headers: { 'content-type': format.contentType }, body: await context.engine.synthesize(request, { signal: context.signal }) }
      },
    }),
    route<SpeechBody>({
      ...synthesis,
      method: 'POST',
      path: `${PREFIX}/stream`,
      handle: async (context) => {
        const { format, request } = await prepared(tables, context)
        return { status: 200, headers: { 'content-type': format.contentType }, stream: await startStream(context.engine.stream(request, { signal: context.signal })) }
      },
    }),
    route<SpeechBody>({
      ...synthesis,
      method: 'POST',
      path: `${PREFIX}/with-timestamps`,
      handle: async (context) => {
        const { request } = await prepared(tables, context)
        const spoken = await context.engine.synthesizeWithTimestamps(request, { signal: context.signal })
        const words = timedWords(spoken.alignment)
        return { status: 200, json: timestamped(spoken.audio_base64, alignText(context.body.text, words), new SpokenAligner().next(words)) }
      },
    }),
    route<SpeechBody>({
      ...synthesis,
      method: 'POST',
      path: `${PREFIX}/stream/with-timestamps`,
      handle: async (context) => {
        const { request } = await prepared(tables, context)
        const lines = timestampLines(context.engine.speak(request, { signal: context.signal }), context.body.text)
        return { status: 200, headers: { 'content-type': 'application/x-ndjson' }, stream: await startStream(lines) }
      },
    }),
  ]
}
