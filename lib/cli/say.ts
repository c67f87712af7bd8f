/** `svc-tts say`: speaks a text into a file, stdout or a player, with progress and a summary on stderr. */
import { wavHeader, type OutputFormat } from '../audio/format.js'
import type { Engine, SpeechChunk } from '../engine.js'
import { TtsError } from '../errors.js'
import { parseOutputFormat, parseWith, sessionRequestSchema, SYNTHESIS_FIELD_CODES } from '../schemas.js'
import type { Language } from '../text/types.js'
import { defaultVoiceFor, PREDEFINED_VOICES } from '../voices/predefined.js'
import { fileDestination, playerDestination, stdoutDestination, type AudioDestination } from './destinations.js'
import { usageError } from './exit.js'
import { chooseFormat, COMPRESSED_FORMATS, parseBitRate, type CliFormat } from './formats.js'
import { findPlayer } from './player.js'
import { LONG_TEXT_CHARS, ProgressBar, summaryLine, TextPosition } from './progress.js'
import type { TextSource } from './text.js'

export interface SayOptions {
  out?: string
  format?: string
  bitRate?: string
  play: boolean
  quiet: boolean
  model?: string
  voice?: string
  language?: string
  encoding?: string
  sampleRate?: string
  signal: AbortSignal
}

/** The process's standard streams, passed in so the command reads as what it touches. */
export interface Terminal {
  stdout: NodeJS.WriteStream
  stderr: NodeJS.WriteStream
}

function pickVoice(voice: string | undefined, language: Language): string {
  if (!voice) return defaultVoiceFor(language).record.voice_id
  const byName = PREDEFINED_VOICES.find((v) => v.record.name.toLowerCase() === voice.toLowerCase())
  return byName ? byName.record.voice_id : voice
}

/**
 * The synthesis request without its transcript. WAV is asked for as raw PCM: the CLI writes the
 * header itself. The options are strings: the request schema checks and types them.
 */
function requestFor(options: SayOptions, format: CliFormat) {
  const voiceId = pickVoice(options.voice, (options.language ?? 'en') as Language)
  const voiceLanguage = PREDEFINED_VOICES.find((v) => v.record.voice_id === voiceId)?.record.language
  const language = options.language ?? voiceLanguage ?? 'en'
  const bitRate = parseBitRate(options.bitRate, format)
  return parseWith(sessionRequestSchema, {
    model_id: options.model ?? (language === 'en' ? 'svc_pro_v1.0' : 'svc_flash_v1.0'),
    voice: { mode: 'id', id: voiceId },
    ...(options.language && { language: options.language }),
    output_format: {
      container: COMPRESSED_FORMATS.includes(format) ? format : 'raw',
      ...(options.encoding && { encoding: options.encoding }),
      ...(options.sampleRate && { sample_rate: Number(options.sampleRate) }),
      ...(bitRate !== undefined && { bit_rate: bitRate }),
    },
  }, 'request', SYNTHESIS_FIELD_CODES)
}

function destinationsFor(options: SayOptions, format: CliFormat, pcm: OutputFormat, terminal: Terminal): AudioDestination[] {
  if (!options.out && !options.play) throw usageError('say needs --out FILE (- for stdout) or --play')
  if (options.play && COMPRESSED_FORMATS.includes(format)) {
    throw usageError(`--play takes PCM: write ${format} to a file without --play, or play a .wav or .raw output`)
  }
  const header = format === 'wav' ? wavHeader(pcm) : undefined
  const destinations: AudioDestination[] = []
  if (options.play) {
    const player = findPlayer(pcm)
    destinations.push(playerDestination(player, player.input === 'wav' ? wavHeader(pcm) : undefined))
  }
  if (options.out === '-') destinations.push(stdoutDestination(terminal.stdout, header))
  else if (options.out) destinations.push(fileDestination(options.out, header))
  return destinations
}

/** The speech of the text, and how much of the text it has reached. */
async function* speech(engine: Engine<string>, request: ReturnType<typeof requestFor>, text: TextSource, position: TextPosition, signal: AbortSignal): AsyncGenerator<SpeechChunk> {
  if (text.kind === 'whole') {
    position.append(text.text)
    yield* engine.speak({ ...request, transcript: text.text }, { signal })
    return
  }
  // Stdin is spoken as it arrives: complete sentences go to synthesis while the rest is still coming.
  const session = await engine.open(request, { signal })
  const feeding = (async () => {
    try {
      for await (const piece of text.pieces) {
        position.append(piece)
        session.write(piece)
      }
      session.end()
    } catch (error) {
      session.abort(error)
    }
  })()
  yield* session
  await feeding
  if (!position.hasText) throw new TtsError('INVALID_REQUEST', 'stdin had no text to speak')
}

export async function say(engine: Engine, text: TextSource, options: SayOptions, terminal: Terminal): Promise<void> {
  const started = performance.now()
  const format = chooseFormat(options.out, options.format)
  const request = requestFor(options, format)
  // The PCM the engine makes (validated here as the engine would, for the WAV header and the durations).
  const { encoding, sample_rate } = request.output_format ?? {}
  const pcm = parseOutputFormat({ encoding, sample_rate }, 'raw')
  const destinations = destinationsFor(options, format, pcm, terminal)
  const position = new TextPosition()
  const showProgress = terminal.stderr.isTTY && !options.quiet && (text.kind === 'stream' || text.text.length >= LONG_TEXT_CHARS)
  const bar = showProgress ? new ProgressBar(terminal.stderr) : undefined
  let samples = 0
  let complete = false
  try {
    for await (const chunk of speech(engine, request, text, position, options.signal)) {
      await Promise.all(destinations.map((d) => d.write(chunk.audio)))
      samples += chunk.samples
      const reached = position.advance(chunk.words)
      bar?.update({
        fraction: text.kind === 'whole' ? reached / Math.max(1, position.length) : undefined,
        audioSeconds: samples / pcm.sample_rate,
        elapsedMs: performance.now() - started,
      })
    }
    complete = true
  } finally {
    bar?.clear()
    const closing = await Promise.allSettled(destinations.map((d) => d.close(complete)))
    const failed = closing.find((c) => c.status === 'rejected')
    if (complete && failed) throw failed.reason
  }
  if (!options.quiet) {
    terminal.stderr.write(`${summaryLine({ audioSeconds: samples / pcm.sample_rate, wallMs: performance.now() - started, outputs: destinations.map((d) => d.describe()) })}\n`)
  }
}
