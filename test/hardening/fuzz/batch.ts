/**
 * One child process of the fuzz test: `node --import tsx batch.ts SEED FROM COUNT`. Runs inputs
 * FROM..FROM+COUNT-1 one after another on one engine and prints a line per input, so that the
 * parent can name the input a crash or a hang happened on:
 *   START i | OK i | FAIL i <why> | STALL i <ms> | END
 * An input that stalls the event loop over 200 ms is run twice more before it counts as a stall
 * (the machine is shared; a blocking bug stalls every time).
 */
import { createEngine, TtsError, type Engine, type SynthesisRequest } from '../../../lib/index.js'
import { watchStalls } from '../../helpers/stall.js'
import { fuzzInput, type FuzzInput } from './inputs.js'

const STALL_MS = 200
/** Chunks read from a stream before it is dropped. */
const STREAM_CHUNKS = 3

const [seed, from, count] = process.argv.slice(2).map(Number) as [number, number, number]

const stalls = watchStalls()

const WIDTH: Record<string, number> = { pcm_s16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 }

/** Runs one input; returns why it failed, or null. */
async function run(engine: Engine, input: FuzzInput): Promise<string | null> {
  // Fuzzed: anything a JavaScript caller might send; the engine checks it at run time.
  const request = input.request as SynthesisRequest
  const format = { container: input.call === 'synthesize' ? 'wav' : 'raw', encoding: 'pcm_s16le', sample_rate: 44100, ...request.output_format }
  try {
    if (input.call === 'stream' || input.call === 'abort') {
      const controller = new AbortController()
      const timer = input.call === 'abort' ? setTimeout(() => controller.abort(), input.abortAfterMs) : undefined
      try {
        let chunks = 0
        for await (const chunk of engine.stream(request, { signal: controller.signal })) {
          if (!Buffer.isBuffer(chunk)) return 'a stream chunk is not a Buffer'
          if (++chunks === STREAM_CHUNKS) break
        }
      } finally {
        clearTimeout(timer)
      }
    } else if (input.call === 'synthesize') {
      const audio = await engine.synthesize(request)
      const pcm = format.container === 'wav' ? audio.length - (audio.indexOf('data') + 8) : audio.length
      if (pcm < 0 || pcm % WIDTH[format.encoding as string]! !== 0) return `synthesize returned ${audio.length} bytes`
    } else {
      const { audio_base64, alignment } = await engine.synthesizeWithTimestamps(request)
      const seconds = Buffer.from(audio_base64, 'base64').length / WIDTH[format.encoding as string]! / (format.sample_rate as number)
      const words = alignment.words.length
      if (alignment.word_start_times_milliseconds.length !== words || alignment.word_end_times_milliseconds.length !== words) return 'alignment arrays differ in length'
      const late = alignment.word_end_times_milliseconds.find((end, i) => end < alignment.word_start_times_milliseconds[i]! || end > seconds * 1000 + 50)
      if (late !== undefined) return `a word ends at ${late} ms, outside ${seconds.toFixed(3)} s of audio`
    }
    return null
  } catch (error) {
    if (error instanceof TtsError) return null
    return `threw a non-TtsError: ${String((error as Error)?.stack ?? error).slice(0, 500)}`
  }
}

const engine = await createEngine()
await engine.synthesize({ ...(fuzzInput(seed, 0).request as SynthesisRequest), transcript: 'warm up 日本' }).catch(() => {})
for (let index = from; index < from + count; index++) {
  const input = fuzzInput(seed, index)
  console.log(`START ${index}`)
  let stalledMs = Infinity
  let failure: string | null = null
  for (let attempt = 0; attempt < 3 && stalledMs >= STALL_MS && failure === null; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    stalls.reset()
    failure = await run(engine, input)
    await new Promise((resolve) => setTimeout(resolve, 10))  // a stall at the very end shows up too
    stalledMs = stalls.worstMs()
  }
  if (failure !== null) console.log(`FAIL ${index} ${failure.replace(/\n/g, ' | ')}`)
  else if (stalledMs >= STALL_MS) console.log(`STALL ${index} ${stalledMs.toFixed(0)}`)
  else console.log(`OK ${index}`)
}
await engine.close()
console.log('END')
process.exit(0)
