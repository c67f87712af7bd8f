/**
 * Neural packs on the benchmark stand-in for a Piper medium voice (scripts/make-bench-piper.py):
 * real-time factor at 1 and 2 intra-op threads, time to first audio, throughput with 4 concurrent
 * requests, peak RSS for a ~40 s paragraph, event-loop stall, and our overhead over a bare ONNX
 * Runtime run of the same ids. Each measurement runs in a fresh child process.
 *
 *   npm run bench:neural            (prints a Markdown section for bench/RESULTS.md)
 *
 * With sherpa-onnx-node installed (not a dependency: `npm install --no-save sherpa-onnx-node`, or
 * SHERPA_ONNX_NODE=/path/to/node_modules/sherpa-onnx-node), it serves the same model side by side
 * (its VITS/Piper frontend, the same espeak-ng data, one sentence per callback).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createEngine, type Engine } from '../lib/index.js'
import { loadNative, type NativeModel } from '../lib/native.js'
import { peakRssMib } from './rss.js'
import { median, quantile } from './stats.js'
import { HARVARD_SENTENCES, THOUSAND_WORDS, TWO_SENTENCES } from './texts.js'
import { TimerLagMonitor } from './timer-lag.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MODEL = path.join(root, 'bench/.models/piper-medium-standin.onnx')
const RATE = 22050
const ESPEAK_DATA = '/usr/lib/x86_64-linux-gnu/espeak-ng-data'
/** The first sentences of the long text up to about 100 words: the "40 s paragraph" of the acceptance criteria. */
const PARAGRAPH = THOUSAND_WORDS.split(/(?<=\.) /).reduce((text, sentence) => (text.split(' ').length >= 100 ? text : `${text} ${sentence}`.trim()), '')

interface Measured {
  scenario: string
  firstAudioMs?: number[]
  wallMs?: number
  audioSeconds?: number
  /** Bare ORT on the model file as it is, and on the graph the pack runs (its convolutions lifted to 2-D). */
  bareMs?: number
  bareLiftedMs?: number
  worstLagMs?: number
  /** Scenario 'lengths': RSS after each pass over clauses of every length. */
  passRssMib?: number[]
  peakRssMib: number
  /** Whether the pack runs its vocoder on windows, and why not; the convolutions it runs as 2-D. */
  windowed?: boolean
  windowedWhy?: string
  lifted?: number
  /** RSS when the child started, before the engine (Node, tsx and the modules loaded). */
  startRssMib: number
  loadMs: number
}

const START_RSS_MIB = process.memoryUsage.rss() / 2 ** 20
/** The 20 sentences are timed this many times, through the engine and bare in turn: the median of each. */
const RTF_PASSES = 5
/** One clause of each length from 2 to 16 words (about 1 to 7 s): a model run of every size a service meets. */
const CLAUSE_WORDS = 'the old lighthouse stood at the end of a long spit of sand and the keeper walked out'.split(' ')
const CLAUSES = Array.from({ length: 15 }, (_, i) => `${CLAUSE_WORDS.slice(0, i + 2).join(' ')}.`)

async function speakAll(engine: Engine, voice: string, transcript: string): Promise<{ firstMs: number; wallMs: number; samples: number }> {
  const start = performance.now()
  let firstMs = 0
  let samples = 0
  for await (const chunk of engine.speak({ model_id: 'svc_pro_v1.0', transcript, voice: { mode: 'id', id: voice }, output_format: { sample_rate: RATE } })) {
    if (samples === 0) firstMs = performance.now() - start
    samples += chunk.samples
  }
  return { firstMs, wallMs: performance.now() - start, samples }
}

/** The ids the engine gives each sentence, run straight through the session: ORT with nothing around it. */
async function bareRun(model: NativeModel, sentences: readonly string[]): Promise<number> {
  const native = loadNative()
  const config = (await import(MODEL + '.json', { with: { type: 'json' } })).default as { phoneme_id_map: Record<string, number[]> }
  const map = config.phoneme_id_map
  const inputs = []
  for (const sentence of sentences) {
    const phonemes = `${await native.phonemize(sentence.replace(/[.,]$/, ''), 'en-us', true)}.`
    const ids = [...map['^']!, ...map['_']!]
    for (const c of phonemes.normalize('NFD')) if (map[c]) ids.push(...map[c]!, ...map['_']!)
    ids.push(...map['$']!)
    inputs.push(ids)
  }
  const start = performance.now()
  for (const ids of inputs) {
    await model.run([
      { name: 'input', type: 'int64', shape: [1, ids.length], data: BigInt64Array.from(ids.map(BigInt)) },
      { name: 'input_lengths', type: 'int64', shape: [1], data: BigInt64Array.from([BigInt(ids.length)]) },
      { name: 'scales', type: 'float32', shape: [3], data: Float32Array.from([0.667, 1, 0.8]) },
    ], ['output'])
  }
  return performance.now() - start
}

interface SherpaTts {
  generateAsync(request: { text: string; sid: number; speed: number; onProgress?: () => number }): Promise<{ samples: Float32Array; sampleRate: number }>
}

function sherpaModule(): { OfflineTts: { createAsync(config: unknown): Promise<SherpaTts> } } | undefined {
  try {
    return createRequire(import.meta.url)(process.env.SHERPA_ONNX_NODE ?? 'sherpa-onnx-node')
  } catch {
    return undefined
  }
}

async function sherpaSpeak(tts: SherpaTts, text: string): Promise<{ firstMs: number; wallMs: number; samples: number }> {
  const start = performance.now()
  let firstMs = 0
  const audio = await tts.generateAsync({ text, sid: 0, speed: 1, onProgress: () => {
    if (firstMs === 0) firstMs = performance.now() - start
    return 1
  } })
  return { firstMs: firstMs || performance.now() - start, wallMs: performance.now() - start, samples: audio.samples.length }
}

async function sherpaChild(scenario: string): Promise<Measured> {
  const threads = scenario.endsWith('2t') ? 2 : 1
  const loadStart = performance.now()
  const tts = await sherpaModule()!.OfflineTts.createAsync({
    model: { vits: { model: MODEL, tokens: path.join(path.dirname(MODEL), 'tokens.txt'), dataDir: ESPEAK_DATA }, numThreads: threads, provider: 'cpu', debug: 0 },
    maxNumSentences: 1,
  })
  const out: Measured = { scenario, peakRssMib: 0, startRssMib: START_RSS_MIB, loadMs: performance.now() - loadStart }
  for (let i = 0; i < 3; i++) await sherpaSpeak(tts, TWO_SENTENCES)
  if (scenario.startsWith('sherpa-rtf')) {
    out.firstAudioMs = []
    for (let i = 0; i < 15; i++) out.firstAudioMs.push((await sherpaSpeak(tts, TWO_SENTENCES)).firstMs)
    const start = performance.now()
    let samples = 0
    for (const sentence of HARVARD_SENTENCES) samples += (await sherpaSpeak(tts, sentence)).samples
    out.wallMs = performance.now() - start
    out.audioSeconds = samples / RATE
  } else if (scenario === 'sherpa-paragraph') {
    const lag = new TimerLagMonitor()
    lag.start()
    const run = await sherpaSpeak(tts, PARAGRAPH)
    out.worstLagMs = lag.stop().worstMs
    out.wallMs = run.wallMs
    out.firstAudioMs = [run.firstMs]
    out.audioSeconds = run.samples / RATE
  } else {
    const start = performance.now()
    const runs = await Promise.all(Array.from({ length: 4 }, () => sherpaSpeak(tts, PARAGRAPH)))
    out.wallMs = performance.now() - start
    out.audioSeconds = runs.reduce((sum, r) => sum + r.samples, 0) / RATE
  }
  out.peakRssMib = peakRssMib()
  return out
}

async function child(scenario: string): Promise<Measured> {
  if (scenario.startsWith('sherpa')) return sherpaChild(scenario)
  const threads = scenario.endsWith('2t') ? 2 : 1
  const loadStart = performance.now()
  const engine = await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: MODEL } }, modelThreads: threads })
  const loadMs = performance.now() - loadStart
  const voice = (await engine.voices.list({ limit: 100 })).voices.find((v) => v.name.startsWith('default ('))!.voice_id
  for (let i = 0; i < 3; i++) await speakAll(engine, voice, TWO_SENTENCES)  // warm-up
  const info = engine.models.get('svc_pro_v1.0').pack!.info
  const out: Measured = { scenario, peakRssMib: 0, startRssMib: START_RSS_MIB, loadMs, windowed: info.windowedVocoder, windowedWhy: info.windowedVocoderWhy, lifted: info.liftedConvolutions }
  if (scenario.startsWith('rtf')) {
    out.firstAudioMs = []
    for (let i = 0; i < 15; i++) out.firstAudioMs.push((await speakAll(engine, voice, TWO_SENTENCES)).firstMs)
    // Bare ORT runs the model in one session (the pack runs it in two parts, cut before the
    // vocoder): the file as it is, and the graph with its convolutions lifted to 2-D as the pack
    // runs it. Second engines hold them, after the peak RSS is taken.
    out.peakRssMib = peakRssMib()
    const bareEngine = await createEngine({
      models: {
        asFile: { type: 'piper', path: MODEL, windowedVocoder: false, liftConvolutions: false },
        lifted: { type: 'piper', path: MODEL, windowedVocoder: false },
      },
      modelThreads: threads,
    })
    const fileModel = bareEngine.models.get('asFile').pack!.model
    const liftedModel = bareEngine.models.get('lifted').pack!.model
    // Engine and bare passes alternate, so a slow spell of the machine falls on all three.
    const wall: number[] = []
    const bare: number[] = []
    const bareLifted: number[] = []
    for (let pass = 0; pass < RTF_PASSES; pass++) {
      const start = performance.now()
      let samples = 0
      for (const sentence of HARVARD_SENTENCES) samples += (await speakAll(engine, voice, sentence)).samples
      wall.push(performance.now() - start)
      out.audioSeconds = samples / RATE
      bare.push(await bareRun(fileModel, HARVARD_SENTENCES))
      bareLifted.push(await bareRun(liftedModel, HARVARD_SENTENCES))
    }
    await bareEngine.close()
    out.wallMs = median(wall)
    out.bareMs = median(bare)
    out.bareLiftedMs = median(bareLifted)
  } else if (scenario === 'concurrent4') {
    const start = performance.now()
    const runs = await Promise.all(Array.from({ length: 4 }, () => speakAll(engine, voice, PARAGRAPH)))
    out.wallMs = performance.now() - start
    out.audioSeconds = runs.reduce((sum, r) => sum + r.samples, 0) / RATE
  } else if (scenario === 'lengths') {
    out.passRssMib = []
    for (let pass = 0; pass < 2; pass++) {
      for (const clause of CLAUSES) await speakAll(engine, voice, clause)
      out.passRssMib.push(process.memoryUsage.rss() / 2 ** 20)
    }
  } else if (scenario === 'paragraph') {
    const lag = new TimerLagMonitor()
    lag.start()
    const run = await speakAll(engine, voice, PARAGRAPH)
    out.worstLagMs = lag.stop().worstMs
    out.wallMs = run.wallMs
    out.firstAudioMs = [run.firstMs]
    out.audioSeconds = run.samples / RATE
  }
  if (!scenario.startsWith('rtf')) out.peakRssMib = peakRssMib()
  await engine.close()
  return out
}

/** The paragraph's peak RSS from the compiled package (bench/compiled-paragraph.mjs), or undefined without dist/. */
function compiledParagraph(): { peakRssMib: number; startRssMib: number } | undefined {
  if (!existsSync(path.join(root, 'dist/index.js'))) return undefined
  const input = JSON.stringify({ model: MODEL, warmUp: TWO_SENTENCES, paragraph: PARAGRAPH })
  const result = spawnSync(process.execPath, [path.join(root, 'bench/compiled-paragraph.mjs')], { cwd: root, input, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`compiled paragraph failed: ${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as { peakRssMib: number; startRssMib: number }
}

function runChild(scenario: string): Measured {
  const result = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', scenario], { cwd: root, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${scenario} failed: ${result.stderr}`)
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Measured
}

const fmt = (n: number, digits = 3) => Number(n.toPrecision(digits)).toString()

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    console.log(JSON.stringify(await child(process.argv[3]!)))
    return
  }
  // A stand-in made before its vocoder's first node was named as in official exports is made again.
  if (!existsSync(MODEL) || !readFileSync(MODEL).includes('/dec/conv_pre/Conv')) {
    mkdirSync(path.dirname(MODEL), { recursive: true })
    execFileSync('python3', [path.join(root, 'scripts/make-bench-piper.py'), MODEL], { env: { ...process.env, PYENV_VERSION: 'system' }, stdio: 'inherit' })
  }
  const started = new Date().toISOString()
  const load = os.loadavg()[0]!
  const rtf1 = runChild('rtf-1t')
  const rtf2 = runChild('rtf-2t')
  const concurrent = runChild('concurrent4')
  const paragraph = runChild('paragraph')
  const lengths = runChild('lengths')
  const compiled = compiledParagraph()
  const sherpa = sherpaModule() ? [runChild('sherpa-rtf-1t'), runChild('sherpa-rtf-2t'), runChild('sherpa-concurrent4'), runChild('sherpa-paragraph')] : undefined
  const lines = [
    '## Neural packs: a Piper medium stand-in',
    '',
    `Generated by \`npm run bench:neural\` (bench/neural.ts) on ${started}: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'cpu'}), `,
    `Node ${process.version}, ONNX Runtime ${loadNative().onnxRuntimeVersion()}, CPU execution provider; 1-minute load average ${fmt(load)} at the start, ${fmt(os.loadavg()[0]!)} at the end.`,
    'The model is scripts/make-bench-piper.py\'s stand-in with a Piper medium voice\'s architecture sizes and random weights (about 2.5 GMAC per audio second);',
    'audio at its native 22 050 Hz, 16-bit. Each row is a fresh process after 3 warm-up requests.',
    '',
    '| measurement | 1 intra-op thread | 2 intra-op threads |',
    '| --- | --- | --- |',
    `| load + check + warm-up of the pack | ${fmt(rtf1.loadMs)} ms | ${fmt(rtf2.loadMs)} ms |`,
    `| first audio, two-sentence text, median (p95) of 15 | ${fmt(median(rtf1.firstAudioMs!))} ms (${fmt(quantile(rtf1.firstAudioMs!, 0.95))}) | ${fmt(median(rtf2.firstAudioMs!))} ms (${fmt(quantile(rtf2.firstAudioMs!, 0.95))}) |`,
    `| RTF, 20 Harvard sentences one request each, median of ${RTF_PASSES} passes | ${fmt(rtf1.wallMs! / 1000 / rtf1.audioSeconds!)} | ${fmt(rtf2.wallMs! / 1000 / rtf2.audioSeconds!)} |`,
    `| bare ORT on the same ids (addon's raw session call on the model file as it is, loaded whole), RTF, passes alternating with the engine's | ${fmt(rtf1.bareMs! / 1000 / rtf1.audioSeconds!)} | ${fmt(rtf2.bareMs! / 1000 / rtf2.audioSeconds!)} |`,
    `| engine over bare ORT on the file | ${fmt((rtf1.wallMs! / rtf1.bareMs! - 1) * 100, 2)} % | ${fmt((rtf2.wallMs! / rtf2.bareMs! - 1) * 100, 2)} % |`,
    `| bare ORT on the graph the pack runs (the file with its ${rtf1.lifted} 1-D convolutions lifted to 2-D, loaded whole), RTF | ${fmt(rtf1.bareLiftedMs! / 1000 / rtf1.audioSeconds!)} | ${fmt(rtf2.bareLiftedMs! / 1000 / rtf2.audioSeconds!)} |`,
    `| engine overhead over bare ORT on that same graph (phonemize, ids, encode, delivery, the first chunk's vocoder windows) | ${fmt((rtf1.wallMs! / rtf1.bareLiftedMs! - 1) * 100, 2)} % | ${fmt((rtf2.wallMs! / rtf2.bareLiftedMs! - 1) * 100, 2)} % |`,
    '',
    `- 4 concurrent requests of a ${fmt(concurrent.audioSeconds! / 4)} s paragraph, 1 thread each: ${fmt(concurrent.audioSeconds! / (concurrent.wallMs! / 1000))} audio seconds per wall second (${fmt(concurrent.wallMs!)} ms for ${fmt(concurrent.audioSeconds!)} s of audio); peak RSS ${fmt(concurrent.peakRssMib)} MiB.`,
    `- One ${fmt(paragraph.audioSeconds!)} s paragraph: first audio ${fmt(paragraph.firstAudioMs![0]!)} ms, whole ${fmt(paragraph.wallMs!)} ms, peak RSS of the whole Node process ${fmt(paragraph.peakRssMib)} MiB (${fmt(paragraph.startRssMib)} MiB of it before the engine was created), worst event-loop stall (2 ms timer) ${fmt(paragraph.worstLagMs!)} ms.`,
    compiled
      ? `- The same paragraph from the compiled package (dist/, no TypeScript loader in the process, as users run it): peak RSS ${fmt(compiled.peakRssMib)} MiB (${fmt(compiled.startRssMib)} MiB before the library was imported).`
      : '- The compiled package (dist/) was not built: `npm run build:ts` adds its peak RSS.',
    `- Memory over model runs of every size: clauses of 2 to 16 words, one request each, twice over: RSS ${fmt(lengths.passRssMib![0]!)} MiB after the first pass, ${fmt(lengths.passRssMib![1]!)} MiB after the second (it stays at the largest run's: ONNX Runtime's per-shape memory patterns are off, as with them each new length kept a block of its own, and every session shares one arena that starts with a 256 MiB region).`,
    `- The pack runs the stand-in's ${rtf1.lifted} 1-D convolutions as 2-D ones over a height-1 view (native/onnx/conv_lift.cc): the same arithmetic in ONNX Runtime's 2-D CPU kernels.`,
    `- The pack runs the stand-in in two parts, cut before its vocoder (windowed vocoder: ${rtf1.windowed ? 'on' : `off, ${rtf1.windowedWhy}`}): a request's first chunk is the text side, then the vocoder on 32 latent frames (0.37 s of audio) and the frames they reach, then on the rest; later chunks run whole. A neural chunk is whole clauses up to 80 characters (30 in the first sentence), one chunk at a time per stream: the longest chunk sets the memory peak.`,
  ]
  if (sherpa) {
    const [s1, s2, s4, sp] = sherpa as [Measured, Measured, Measured, Measured]
    const version = (createRequire(import.meta.url)(path.join(path.dirname(createRequire(import.meta.url).resolve(process.env.SHERPA_ONNX_NODE ?? 'sherpa-onnx-node')), 'package.json')) as { version: string }).version
    lines.push(
      '',
      `sherpa-onnx-node ${version} serving the same model in the same run (its own ONNX Runtime, one callback per sentence):`,
      '',
      '| measurement | svc-tts, 1 thread | sherpa-onnx-node, 1 thread | svc-tts, 2 threads | sherpa-onnx-node, 2 threads |',
      '| --- | --- | --- | --- | --- |',
      `| load | ${fmt(rtf1.loadMs)} ms | ${fmt(s1.loadMs)} ms | ${fmt(rtf2.loadMs)} ms | ${fmt(s2.loadMs)} ms |`,
      `| first audio, median | ${fmt(median(rtf1.firstAudioMs!))} ms | ${fmt(median(s1.firstAudioMs!))} ms | ${fmt(median(rtf2.firstAudioMs!))} ms | ${fmt(median(s2.firstAudioMs!))} ms |`,
      `| RTF, 20 sentences | ${fmt(rtf1.wallMs! / 1000 / rtf1.audioSeconds!)} | ${fmt(s1.wallMs! / 1000 / s1.audioSeconds!)} | ${fmt(rtf2.wallMs! / 1000 / rtf2.audioSeconds!)} | ${fmt(s2.wallMs! / 1000 / s2.audioSeconds!)} |`,
      `| peak RSS | ${fmt(rtf1.peakRssMib)} MiB | ${fmt(s1.peakRssMib)} MiB | ${fmt(rtf2.peakRssMib)} MiB | ${fmt(s2.peakRssMib)} MiB |`,
      '',
      `- 4 concurrent paragraph requests, 1 thread: svc-tts ${fmt(concurrent.audioSeconds! / (concurrent.wallMs! / 1000))} audio s per wall s, sherpa-onnx-node ${fmt(s4.audioSeconds! / (s4.wallMs! / 1000))} (${fmt((concurrent.audioSeconds! / concurrent.wallMs!) / (s4.audioSeconds! / s4.wallMs!))}x); peak RSS ${fmt(concurrent.peakRssMib)} vs ${fmt(s4.peakRssMib)} MiB.`,
      `- One paragraph, 1 thread: svc-tts first audio ${fmt(paragraph.firstAudioMs![0]!)} ms, whole ${fmt(paragraph.wallMs!)} ms, peak RSS ${fmt(paragraph.peakRssMib)} MiB, worst stall ${fmt(paragraph.worstLagMs!)} ms; sherpa-onnx-node first audio ${fmt(sp.firstAudioMs![0]!)} ms, whole ${fmt(sp.wallMs!)} ms (${fmt(sp.audioSeconds!)} s of audio), peak RSS ${fmt(sp.peakRssMib)} MiB (${fmt(sp.startRssMib)} before its model loaded), worst stall ${fmt(sp.worstLagMs!)} ms.`,
    )
  }
  lines.push('- Not measured: CUDA (no GPU where this ran).')
  console.log(lines.join('\n'))
}

await main()
