#!/usr/bin/env node
/**
 * svc-tts command line:
 *   svc-tts say "Hello there" --out hello.wav [--model ID] [--voice ID|NAME] [--language xx]
 *                                            [--encoding pcm_s16le] [--sample-rate 44100]
 *   svc-tts voices [--language xx]
 *   svc-tts serve [--port 8080] [--host 127.0.0.1] [--data-dir DIR] [--framework standalone|express|fastify]
 *   svc-tts keys create [--name N] [--scopes text_to_speech,voices] | list | revoke ID  [--data-dir DIR]
 *   svc-tts models
 * say, voices, models and serve take --models-dir DIR: model packs described by DIR/svc-tts.models.json.
 */
import { createWriteStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { once } from 'node:events'
import { parseArgs } from 'node:util'
import { wavHeader, type OutputFormat } from './audio/format.js'
import { createEngine, type Engine } from './engine.js'
import { isTtsError } from './errors.js'
import { loadNative } from './native.js'
import { readModelsDir } from './neural/models-dir.js'
import { parseOutputFormat, parseWith, SYNTHESIS_FIELD_CODES, synthesisRequestSchema } from './schemas.js'
import { defaultDataDir, FRAMEWORKS, manageKeys, serve, type Framework } from './server/serve.js'
import { LANGUAGES, type Language } from './text/types.js'
import { PREDEFINED_VOICES, defaultVoiceFor } from './voices/predefined.js'

const USAGE = `usage:
  svc-tts say "text" --out FILE.wav [--model ID] [--voice ID|NAME] [--language xx] [--encoding ENC] [--sample-rate HZ]
  svc-tts voices [--language xx]
  svc-tts serve [--port 8080] [--host 127.0.0.1] [--data-dir DIR] [--framework standalone|express|fastify]
  svc-tts keys create [--name N] [--scopes text_to_speech,voices] | list | revoke ID  [--data-dir DIR]
  svc-tts models                  models, their packs and devices, and the packs' voices
  --models-dir DIR                serve model ids from the packs in DIR/svc-tts.models.json`

function pickVoice(voice: string | undefined, language: Language): string {
  if (!voice) return defaultVoiceFor(language).record.voice_id
  const byName = PREDEFINED_VOICES.find((v) => v.record.name.toLowerCase() === voice.toLowerCase())
  return byName ? byName.record.voice_id : voice
}

async function say(engine: Engine<string>, text: string, values: Record<string, string | undefined>): Promise<void> {
  const out = values.out
  if (!out) throw new Error('say needs --out FILE (use - for stdout)')
  const voiceId = pickVoice(values.voice, (values.language ?? 'en') as Language)
  const voiceLanguage = PREDEFINED_VOICES.find((v) => v.record.voice_id === voiceId)?.record.language
  const language = values.language ?? voiceLanguage ?? 'en'
  const request = {
    model_id: values.model ?? (language === 'en' ? 'svc_pro_v1.0' : 'svc_flash_v1.0'),
    transcript: text,
    voice: { mode: 'id', id: voiceId },
    ...(values.language && { language: values.language }),
    output_format: {
      container: out.endsWith('.wav') ? 'wav' : 'raw',
      ...(values.encoding && { encoding: values.encoding }),
      ...(values['sample-rate'] && { sample_rate: Number(values['sample-rate']) }),
    },
  }
  const sink = out === '-' ? process.stdout : createWriteStream(out)
  let bytes = 0
  // Command-line values are strings: the schema checks and types them (the engine checks the model id).
  for await (const part of engine.stream(parseWith(synthesisRequestSchema, request, 'synthesis request', SYNTHESIS_FIELD_CODES))) {
    bytes += part.length
    if (!sink.write(part)) await once(sink, 'drain')
  }
  if (sink === process.stdout) return
  sink.end()
  await once(sink, 'finish')
  // The same defaults the engine applied (the stream already validated the format).
  const format = parseOutputFormat(request.output_format, 'raw')
  if (format.container === 'wav') await writeFinalWavHeader(out, format, bytes)
}

/** A file, unlike a pipe, can get its WAV sizes filled in once the stream has ended. */
async function writeFinalWavHeader(file: string, format: Pick<OutputFormat, 'encoding' | 'sample_rate'>, totalBytes: number): Promise<void> {
  const headerBytes = wavHeader(format).length
  const handle = await open(file, 'r+')
  try {
    await handle.write(wavHeader(format, totalBytes - headerBytes), 0, headerBytes, 0)
  } finally {
    await handle.close()
  }
}

async function listVoices(engine: Engine, language: string | undefined): Promise<void> {
  let cursor: string | undefined
  do {
    const page = await engine.voices.list({ limit: 100, ...(cursor && { cursor }) })
    for (const v of page.voices) {
      if (!language || v.language === language) console.log(`${v.voice_id}  ${v.language}  ${v.gender.padEnd(6)}  ${v.name}`)
    }
    cursor = page.next_cursor ?? undefined
  } while (cursor)
}

/** Each model id with its backend, the pack and device behind it, and the packs' own voices. */
async function listModels(engine: Engine): Promise<void> {
  console.log(`ONNX Runtime ${loadNative().onnxRuntimeVersion()}`)
  for (const model of engine.models.list()) {
    const pack = model.pack
    const where = pack ? `${pack.type} ${pack.path} on ${pack.info.device}${pack.info.hasDurations ? ', durations' : ''}` : model.backend
    console.log(`${model.id}  ${model.languages.join(',')}  ${where}`)
    for (const speaker of pack?.speakers ?? []) console.log(`  ${speaker.language}  ${speaker.gender.padEnd(7)}  ${speaker.name}`)
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      model: { type: 'string' },
      voice: { type: 'string' },
      language: { type: 'string' },
      encoding: { type: 'string' },
      'sample-rate': { type: 'string' },
      'models-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      framework: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command, ...rest] = positionals
  if (values.help || !command) {
    console.log(USAGE)
    return values.help ? 0 : 1
  }
  if (command === 'keys') return manageKeys(rest[0], rest[1], values)
  if (command === 'serve') {
    const framework = values.framework ?? 'standalone'
    if (!(FRAMEWORKS as readonly string[]).includes(framework)) throw new Error(`--framework must be one of ${FRAMEWORKS.join(', ')}`)
    const port = Number(values.port ?? 8080)
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be a port number')
    await serve({
      port, host: values.host ?? '127.0.0.1', dataDir: values['data-dir'] ?? defaultDataDir(), framework: framework as Framework, shutdownDeadlineMs: 10_000,
      ...(values['models-dir'] && { engine: readModelsDir(values['models-dir']) }),
    })
    return 0
  }
  if (values.language && !(LANGUAGES as readonly string[]).includes(values.language)) {
    throw new Error(`--language must be one of ${LANGUAGES.join(', ')}`)
  }
  const engine = await createEngine(values['models-dir'] ? readModelsDir(values['models-dir']) : {})
  try {
    if (command === 'say') await say(engine, rest.join(' '), values as Record<string, string | undefined>)
    else if (command === 'voices') await listVoices(engine, values.language)
    else if (command === 'models') await listModels(engine)
    else {
      console.error(USAGE)
      return 1
    }
  } finally {
    await engine.close()
  }
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(isTtsError(error) ? `svc-tts: ${error.code}: ${error.message}` : `svc-tts: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  },
)
