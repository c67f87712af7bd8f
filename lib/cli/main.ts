/**
 * The svc-tts command line: argument parsing and dispatch (the commands live in lib/cli/; the
 * entries that run it are bin.ts and snapshot.ts).
 * Every failure is one line `error CODE: message` on stderr and an exit status of lib/cli/exit.ts.
 */
import { parseArgs } from 'node:util'
import { CONTAINERS } from '../audio/format.js'
import { createEngine } from '../engine/create-on-call.js'
import { TtsError } from '../errors.js'
import { PACKAGE_VERSION } from '../package-root.js'
import { DICTIONARIES_USAGE, dictionaryLocator, manageDictionaries } from './dictionaries.js'
import { asCliError, exitCodeOf, usageError } from './exit.js'
import { textSource } from './text.js'
import { DATABASE_URL_ENV, defaultDataDir } from './data-dir.js'
import type { PackOptions } from '../neural/options.js'
import { LANGUAGES } from '../text/types.js'

/** What the commands take; the server's names are loaded only to print it. */
async function usage(): Promise<string> {
  const [{ FRAMEWORKS }, { DIALECT_NAMES }] = await Promise.all([import('../server/mount.js'), import('../server/dialects/index.js')])
  return `usage:
  svc-tts say "text" --out FILE [options]      speak text into FILE (.wav .mp3 .ogg .flac .raw), - for stdout
  svc-tts say - | --text-file FILE ...          the text from stdin (also when no text is given and stdin is a pipe) or a file
  svc-tts voices [--language xx]
  svc-tts models                                models, their packs and devices, and the packs' voices
  svc-tts models available [--language xx] [--quality medium]   Piper voices and Kokoro models to pull from the hub
  svc-tts models pull NAME... | list | rm NAME...  [--models-dir DIR]   pulled packs (default dir: SVC_TTS_MODELS_DIR, else ~/.cache/svc-tts/models;
                                                HF_ENDPOINT for a mirror, HF_TOKEN for gated repositories)
  svc-tts serve [--port 8080] [--host 127.0.0.1] [--data-dir DIR] [--framework ${FRAMEWORKS.join('|')}]
                [--dialects ${DIALECT_NAMES.join(',')}|none]   the other APIs served beside svc-tts's own (default: all)
                [--metrics-port N]      /metrics, /healthz and /readyz with no key on a port of their own
                [--database-url URL]    voices and keys in PostgreSQL, shared by replicas (or SVC_TTS_DATABASE_URL)
                [--drain-seconds S]     after SIGTERM, requests are served S more seconds while /readyz says 503 (default 5)
                [--cors-origins URL,..] origins whose pages may call the service (default: none)
                [--wyoming tcp://127.0.0.1:10200|unix://PATH]   Home Assistant's Wyoming protocol beside HTTP
                [--playground on|off]   the page at /playground (default: on for a loopback host)
                [--limits name=N,...]   every key's limits: concurrentRequests, concurrentUploads, requestsPerWindow,
                                        windowSeconds, charactersPerPeriod, periodSeconds (docs/server.md#limits)
                [--redis-url redis://HOST:PORT]   per-key limits shared by every replica on it (or SVC_TTS_REDIS_URL)
                [--slot-lease-seconds S]   how long a Redis concurrency slot outlives a replica that died (default 15)
                [--jobs-dir DIR]        long-form jobs (POST /jobs) on that Redis, their audio in DIR, shared by the replicas
                [--jobs-options name=N,...]   maxCharacters (200000), maxAudioSeconds (43200), resultTtlSeconds (86400),
                                        concurrency (1), attempts (3), lockMs (30000)
                [--jobs-worker on|off]  whether this replica runs jobs (default on; every replica takes them)
  svc-tts keys create [--name N] [--scopes text_to_speech,voices,tokens,metrics] [--limits name=N,...] | list
               | limits ID --limits name=N,...|none | revoke ID | usage [--hours 24]  [--data-dir DIR | --database-url URL]
  ${DICTIONARIES_USAGE.replace('usage: ', '')}
  svc-tts --version

say options:
  --out, -o FILE|-        where the audio goes (stdout with -: a WAV unless --format says otherwise)
  --format ${CONTAINERS.join('|')}   the container, instead of the file's extension
  --play                  play it as it is made (aplay, paplay, ffplay or sox's play, found on PATH)
  --model ID  --voice ID|NAME  --language xx  --encoding ENC  --sample-rate HZ  --bit-rate 128k (mp3, ogg)
  --speed 0.5..2          speaking rate (default 1)
  --voice PACK[/SPEAKER]  a pulled Piper or Kokoro pack's voice (en_US-lessac-medium, kokoro-v1.0/af_bella)
  --pull                  pull that pack first if it is not pulled yet (never done without it)
  --dictionary ID[@N]     a pronunciation dictionary of --data-dir's library (repeat for more)
  --quiet, -q             no progress bar, no summary line
  --models-dir DIR        serve model ids from the packs in DIR/svc-tts.models.json (say, voices, models, serve)`
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      format: { type: 'string' },
      'bit-rate': { type: 'string' },
      'text-file': { type: 'string' },
      play: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      model: { type: 'string' },
      voice: { type: 'string' },
      language: { type: 'string' },
      encoding: { type: 'string' },
      'sample-rate': { type: 'string' },
      speed: { type: 'string' },
      quality: { type: 'string' },
      pull: { type: 'boolean' },
      'models-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      framework: { type: 'string' },
      dialects: { type: 'string' },
      'metrics-port': { type: 'string' },
      'database-url': { type: 'string' },
      'drain-seconds': { type: 'string' },
      'cors-origins': { type: 'string' },
      wyoming: { type: 'string' },
      playground: { type: 'string' },
      'redis-url': { type: 'string' },
      limits: { type: 'string' },
      'jobs-dir': { type: 'string' },
      'jobs-options': { type: 'string' },
      'jobs-worker': { type: 'string' },
      'slot-lease-seconds': { type: 'string' },
      hours: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      dictionary: { type: 'string', multiple: true },
      pls: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  })
}

async function modelsCommand([action, ...names]: string[], values: ReturnType<typeof parseCommandLine>['values']): Promise<number> {
  const interrupted = new AbortController()
  const onInterrupt = () => interrupted.abort(new TtsError('ABORTED', 'interrupted'))
  process.once('SIGINT', onInterrupt)
  try {
    const { manageModels } = await import('./models.js')
    return await manageModels(
      { action: action!, names, modelsDir: values['models-dir'], language: values.language, quality: values.quality, quiet: values.quiet ?? false },
      { stdout: process.stdout, stderr: process.stderr, signal: interrupted.signal },
    )
  } finally {
    process.off('SIGINT', onInterrupt)
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv)
  const [command, ...rest] = positionals
  if (values.version) {
    process.stdout.write(`svc-tts ${PACKAGE_VERSION}\n`)
    return 0
  }
  if (values.help) {
    process.stdout.write(`${await usage()}\n`)
    return 0
  }
  if (!command) throw usageError(`no command given\n${await usage()}`)
  if (command === 'keys') return (await import('./keys.js')).manageKeys(rest[0], rest[1], values)
  if (command === 'models' && rest[0] !== undefined) return modelsCommand(rest, values)
  if (command === 'dictionaries') {
    const url = values['database-url'] ?? process.env[DATABASE_URL_ENV]
    const database = url ? await (await import('../postgres/database.js')).SharedDatabase.connect(url) : undefined
    const dictionaryStore = database && new (await import('../voices/dictionaries/postgres-store.js')).PostgresDictionaryStore(database)
    const engine = await createEngine({ dataDir: values['data-dir'] ?? defaultDataDir(), ...(dictionaryStore && { dictionaryStore }) })
    try {
      return await manageDictionaries(engine, rest[0], rest[1], values, (line) => process.stdout.write(`${line}\n`))
    } finally {
      await engine.close()
      await database?.close()
    }
  }
  if (command === 'serve') return (await import('./serve-command.js')).serveCommand(values)
  if (!['say', 'voices', 'models'].includes(command)) throw usageError(`unknown command '${command}'\n${await usage()}`)
  if (values.language && !(LANGUAGES as readonly string[]).includes(values.language)) {
    throw usageError(`--language must be one of ${LANGUAGES.join(', ')}`)
  }
  // Read before the engine starts, so a bad --text-file costs no engine start-up.
  const text = command === 'say' ? await textSource(rest, values['text-file'], () => process.stdin) : undefined
  // Dictionaries live in a data directory's voice library: naming one opens it.
  const dictionaries = values.dictionary?.map(dictionaryLocator)
  // `packs`: a pulled pack `say --voice` names, served beside --models-dir's.
  const startEngine = async (packs: Record<string, PackOptions> = {}) => {
    const fromDir = values['models-dir'] ? (await import('../neural/models-dir.js')).readModelsDir(values['models-dir']) : { models: {} }
    return createEngine({
      ...fromDir, models: { ...fromDir.models, ...packs },
      ...(dictionaries && { dataDir: values['data-dir'] ?? defaultDataDir() }),
    })
  }
  if (text) {
    const interrupted = new AbortController()
    const onInterrupt = () => interrupted.abort(new TtsError('ABORTED', 'interrupted'))
    process.once('SIGINT', onInterrupt)
    try {
      // Only a --voice can name a pulled pack: the pack machinery is loaded for it alone.
      const packVoice = values.voice === undefined ? undefined : await (await import('./pack-voice.js')).packVoiceFor(values.voice, {
        modelsDir: values['models-dir'] ?? (await import('../neural/store/home.js')).defaultModelsDir(),
        pull: values.pull ?? false, quiet: values.quiet ?? false, signal: interrupted.signal, stderr: process.stderr,
      })
      const { say } = await import('./say.js')
      await say(() => startEngine(packVoice?.models), text, {
        ...(values.out !== undefined && { out: values.out }),
        ...(values.format !== undefined && { format: values.format }),
        ...(values['bit-rate'] !== undefined && { bitRate: values['bit-rate'] }),
        ...((values.model ?? packVoice?.model) !== undefined && { model: values.model ?? packVoice?.model }),
        ...((packVoice?.voice ?? values.voice) !== undefined && { voice: packVoice?.voice ?? values.voice }),
        ...((values.language ?? packVoice?.language) !== undefined && { language: values.language ?? packVoice?.language }),
        ...(values.encoding !== undefined && { encoding: values.encoding }),
        ...(values['sample-rate'] !== undefined && { sampleRate: values['sample-rate'] }),
        ...(values.speed !== undefined && { speed: values.speed }),
        ...(dictionaries && { dictionaries }),
        play: values.play ?? false,
        quiet: values.quiet ?? false,
        signal: interrupted.signal,
      }, { stdout: process.stdout, stderr: process.stderr })
    } finally {
      process.off('SIGINT', onInterrupt)
    }
    return 0
  }
  const engine = await startEngine()
  const { listModels, listVoices } = await import('./lists.js')
  const print = (line: string) => process.stdout.write(`${line}\n`)
  try {
    if (command === 'voices') await listVoices(engine, values.language, print)
    else listModels(engine, values['models-dir'], print)
  } finally {
    await engine.close()
  }
  return 0
}

/** Runs the command line `argv` and exits with its status (lib/cli/exit.ts). */
export function runCli(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (thrown: unknown) => {
      const error = asCliError(thrown)
      process.stderr.write(`error ${error.code}: ${error.message}\n`)
      process.exit(exitCodeOf(error))
    },
  )
}
