/** `svc-tts say`: speaks a text into a file, stdout or a player, with progress and a summary on stderr. */
import { fixFlacLength } from '../audio/flac-file.js'
import { isCompressed, pcmRate, wavHeader, type Container, type OutputFormat } from '../audio/format.js'
import { fixWavSizes } from '../audio/wav-file.js'
import type { Engine, SpeechChunk } from '../engine/engine.js'
import { TtsError } from '../errors.js'
import { formatIn, type ParsedSynthesisRequest } from '../engine/requests.js'
import { parseRequest } from '../engine/resolve.js'
import type { Language } from '../text/types.js'
import { defaultVoiceFor, PREDEFINED_VOICES } from '../voices/predefined.js'
import { fileDestination, playerDestination, stdoutDestination, type AudioDestination } from './destinations.js'
import { usageError } from './exit.js'
import { chooseFormat, parseBitRate } from './formats.js'
import { findPlayer, type Player } from './player.js'
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
  speed?: string
  /** Pronunciation dictionaries, `ID` or `ID@VERSION`. */
  dictionaries?: { id: string; version?: number }[]
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
 * The request: a whole text's synthesis request, or a session's for text to come. WAV is asked for
 * as raw PCM: the CLI writes the header itself. The options are strings: the request schema checks
 * and types them, once; the engine trusts what it checked.
 */
function requestFor(options: SayOptions, format: Container, text: TextSource) {
  const voiceId = pickVoice(options.voice, (options.language ?? 'en') as Language)
  const voiceLanguage = PREDEFINED_VOICES.find((v) => v.record.voice_id === voiceId)?.record.language
  const language = options.language ?? voiceLanguage ?? 'en'
  const bitRate = parseBitRate(options.bitRate, format)
  const container: Container = isCompressed({ container: format }) ? format : 'raw'
  return parseRequest({
    ...(text.kind === 'whole' && { transcript: text.text }),
    model_id: options.model ?? (language === 'en' ? 'svc_pro_v1.0' : 'svc_flash_v1.0'),
    voice: { mode: 'id', id: voiceId },
    ...(options.language && { language: options.language }),
    ...(options.speed !== undefined && { speed: Number(options.speed) }),
    ...(options.dictionaries && { pronunciation_dictionaries: options.dictionaries }),
    output_format: {
      container,
      ...(options.encoding && { encoding: options.encoding }),
      ...(options.sampleRate && { sample_rate: Number(options.sampleRate) }),
      ...(bitRate !== undefined && { bit_rate: bitRate }),
    },
  }, text.kind === 'whole' ? 'synthesis' : 'session')
}

/** Checks where the audio is to go; the player `--play` asks for, found on PATH (PLAYER_NOT_FOUND before any work). */
function checkDestinations(options: SayOptions, format: Container, pcm: OutputFormat, terminal: Terminal): Player | undefined {
  if (!options.out && !options.play) throw usageError('say needs --out FILE (- for stdout) or --play')
  if (options.out === '-' && terminal.stdout.isTTY) {
    throw usageError('--out - would print audio on the terminal: redirect stdout (> speech.wav), pipe it, or use --out FILE or --play')
  }
  if (options.play && isCompressed({ container: format })) {
    throw usageError(`--play takes PCM: write ${format} to a file without --play, or play a .wav or .raw output`)
  }
  return options.play ? findPlayer(pcm) : undefined
}

/**
 * What a file of `format` needs once all is written: a WAV its sizes (from the file's length, so
 * also after a failure), a FLAC its length in samples (only when complete: the encoder's last
 * frames are missing otherwise).
 */
function sealFor(format: Container, spoken: () => number): ((fd: number, complete: boolean) => Promise<unknown>) | undefined {
  if (format === 'wav') return (fd) => fixWavSizes(fd)
  if (format === 'flac') return async (fd, complete) => complete && fixFlacLength(fd, spoken())
  return undefined
}

/** The destinations of a checked command line (the player starts here). `spoken`: the samples so far. */
async function destinationsFor(
  options: SayOptions, format: Container, pcm: OutputFormat, player: Player | undefined, terminal: Terminal, spoken: () => number,
): Promise<AudioDestination[]> {
  const header = format === 'wav' ? wavHeader(pcm) : undefined
  const destinations: AudioDestination[] = []
  if (player) {
    destinations.push(await playerDestination(player, player.input === 'wav' ? wavHeader(pcm) : undefined))
  }
  if (options.out === '-') destinations.push(stdoutDestination(terminal.stdout, header))
  else if (options.out) destinations.push(fileDestination(options.out, header, sealFor(format, spoken)))
  return destinations
}

/** The speech of the text, and how much of the text it has reached. */
async function* speech(engine: Engine<string>, request: ReturnType<typeof requestFor>, text: TextSource, position: TextPosition, signal: AbortSignal): AsyncGenerator<SpeechChunk> {
  if (text.kind === 'whole') {
    position.append(text.text)
    position.complete()
    yield* engine.speak(request as ParsedSynthesisRequest, { signal })
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
      position.complete()
      session.end()
    } catch (error) {
      session.abort(error)
    }
  })()
  yield* session
  await feeding
  if (!position.hasText) throw new TtsError('INVALID_REQUEST', 'stdin had no text to speak')
}

/**
 * Everything the command line says is checked (format, destinations, player) before the engine
 * starts, so a mistyped option costs no start-up; then the speech is made and sent.
 */
export async function say(startEngine: () => Promise<Engine>, text: TextSource, options: SayOptions, terminal: Terminal): Promise<void> {
  const format = chooseFormat(options.out, options.format)
  const request = requestFor(options, format, text)
  // The PCM the engine makes (for the WAV header and the durations).
  const { encoding, sample_rate } = formatIn(request.output_format, 'raw')
  const pcm: OutputFormat = { container: 'raw', encoding, sample_rate }
  const player = checkDestinations(options, format, pcm, terminal)
  const engine = await startEngine()
  try {
    const started = performance.now()
    const position = new TextPosition()
    // Samples count at the rate the speech is synthesised at (Opus at 44.1 kHz is made at 48 kHz).
    const rate = pcmRate({ container: request.output_format?.container ?? 'raw', sample_rate: pcm.sample_rate })
    let samples = 0
    const destinations = await destinationsFor(options, format, pcm, player, terminal, () => samples)
    const long = text.kind === 'stream' || text.text.length >= LONG_TEXT_CHARS
    const bar = terminal.stderr.isTTY && !options.quiet && long ? new ProgressBar(terminal.stderr) : undefined
    const spoken = (chunk: SpeechChunk) => {
      samples += chunk.samples
      const reached = position.advance(chunk.words)
      bar?.update({
        fraction: position.completed ? reached / Math.max(1, position.length) : undefined,
        audioSeconds: samples / rate,
        elapsedMs: performance.now() - started,
      })
    }
    try {
      await send(speech(engine, request, text, position, options.signal), destinations, spoken)
    } finally {
      bar?.clear()  // an error line then starts on a clean line
    }
    if (!options.quiet) {
      const outputs = destinations.map((d) => d.describe())
      terminal.stderr.write(`${summaryLine({ audioSeconds: samples / rate, wallMs: performance.now() - started, outputs })}\n`)
    }
  } finally {
    await engine.close()
  }
}

/** Sends each chunk to every destination (at the pace of the slowest), then to `spoken`; closes the destinations however it ends. */
async function send(chunks: AsyncIterable<SpeechChunk>, destinations: readonly AudioDestination[], spoken: (chunk: SpeechChunk) => void): Promise<void> {
  let complete = false
  try {
    for await (const chunk of chunks) {
      await Promise.all(destinations.map((d) => d.write(chunk.audio)))
      spoken(chunk)
    }
    complete = true
  } finally {
    const closing = await Promise.allSettled(destinations.map((d) => d.close(complete)))
    const failed = closing.find((c) => c.status === 'rejected')
    if (complete && failed) throw failed.reason
  }
}
