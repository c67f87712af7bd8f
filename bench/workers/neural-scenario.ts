/**
 * Child process of bench/neural-packs.ts: one scenario (argv[2]) on the neural stand-in, in a
 * fresh process so its load time and peak RSS are its own; prints its figures as JSON. Scenarios:
 * rtf-1t, rtf-2t, rtf-4t, concurrent4, paragraph, lengths, and with sherpa-onnx-node sherpa-rtf-1t,
 * sherpa-rtf-2t, sherpa-rtf-4t, sherpa-concurrent4, sherpa-paragraph. BENCH_NEURAL_MODEL names
 * another model than the stand-in.
 */
import path from 'node:path'
import { createEngine, type Engine } from '../../lib/index.js'
import { loadNative, type NativeModel } from '../../lib/native.js'
import { PARAGRAPH, RTF_PASSES, scenarioModel, sherpaModule, type Measured, type SherpaTts } from '../harness/neural-stand-in.js'
import { peakRssMib } from '../harness/peak-rss.js'
import { median } from '../harness/stats.js'
import { HARVARD_SENTENCES, TWO_SENTENCES } from '../harness/texts.js'
import { TimerLagMonitor } from '../harness/timer-lag.js'

/** The intra-op threads a scenario names (rtf-2t: 2), else 1. */
const threadsOf = (scenario: string) => Number(/-(\d)t$/.exec(scenario)?.[1] ?? 1)

const START_RSS_MIB = process.memoryUsage.rss() / 2 ** 20
const MODEL = scenarioModel()
const RATE = 22050
const ESPEAK_DATA = '/usr/lib/x86_64-linux-gnu/espeak-ng-data'
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

async function sherpaSpeak(tts: SherpaTts, text: string): Promise<{ firstMs: number; wallMs: number; samples: number }> {
  const start = performance.now()
  let firstMs = 0
  const audio = await tts.generateAsync({ text, sid: 0, speed: 1, onProgress: () => {
    if (firstMs === 0) firstMs = performance.now() - start
    return 1
  } })
  return { firstMs: firstMs || performance.now() - start, wallMs: performance.now() - start, samples: audio.samples.length }
}

async function measureSherpa(scenario: string): Promise<Measured> {
  const threads = threadsOf(scenario)
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

async function measure(scenario: string): Promise<Measured> {
  if (scenario.startsWith('sherpa')) return measureSherpa(scenario)
  const threads = threadsOf(scenario)
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

console.log(JSON.stringify(await measure(process.argv[2]!)))
