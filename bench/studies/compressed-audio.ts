/**
 * Compressed audio (MP3, Ogg Opus, FLAC): what encoding costs and what it saves.
 * - encoding alone: the 1000-word text's PCM fed to the native encoder in 0.2 s pieces (as a
 *   stream feeds it, each piece one call through the worker pool), as a real-time factor;
 * - end to end: synthesize() of the 1000-word text in each container against raw PCM, and the
 *   first audio of a stream() of two sentences;
 * - sizes per container and bit rate.
 * Medians and p95 over repeated runs; the load average is reported, since other work on the
 * machine shows up in every figure.
 *
 *   node --import tsx bench/studies/compressed-audio.ts [runs]   (writes the encode section of bench/RESULTS.md)
 */
import os from 'node:os'
import { createEngine, PREDEFINED_VOICES, type OutputFormatRequest, type SampleRate, type SynthesisRequest } from '../../lib/index.js'
import { loadNative, type NativeEncoderConfig } from '../../lib/native.js'
import { writeSection } from '../harness/results.js'
import { median, quantile } from '../harness/stats.js'
import { THOUSAND_WORDS, TWO_SENTENCES } from '../harness/texts.js'

const RUNS = Number(process.argv[2] ?? 9)
const PIECE_SECONDS = 0.2
/** About what one call gets when a stream's reader falls behind and the stretches merge. */
const LONG_PIECE_SECONDS = 4.5
const voice = { mode: 'id' as const, id: PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id }
const request = (transcript: string, output_format: OutputFormatRequest): SynthesisRequest => ({ model_id: 'svc_flash_v1.5', transcript, voice, output_format })

interface Subject {
  label: string
  pieceSeconds: number
  format: OutputFormatRequest & { container: 'mp3' | 'ogg' | 'flac'; sample_rate: SampleRate }
  config: NativeEncoderConfig
}

const subject = (container: 'mp3' | 'ogg' | 'flac', rate: SampleRate, bitRate?: number, encoding: 'pcm_s16le' | 'pcm_f32le' = 'pcm_s16le', pieceSeconds = PIECE_SECONDS): Subject => ({
  label: `${container} ${rate / 1000} kHz${bitRate ? ` ${bitRate / 1000} kb/s` : encoding === 'pcm_f32le' ? ' 24-bit' : ' 16-bit'}${pieceSeconds === PIECE_SECONDS ? '' : ` (${pieceSeconds} s pieces)`}`,
  pieceSeconds,
  format: { container, sample_rate: rate, ...(bitRate && { bit_rate: bitRate }), encoding },
  config: { codec: container === 'ogg' ? 'opus' : container, sampleRate: rate, bitsPerSample: encoding === 'pcm_f32le' ? 24 : 16, ...(bitRate && { bitRate }) },
})

const SUBJECTS: Subject[] = [
  subject('mp3', 44100, 128000),
  subject('mp3', 44100, 64000),
  subject('mp3', 24000, 64000),
  subject('mp3', 24000, 64000, 'pcm_s16le', LONG_PIECE_SECONDS),
  subject('mp3', 24000, 32000),
  subject('ogg', 48000, 32000),
  subject('ogg', 48000, 64000),
  subject('ogg', 24000, 24000),
  subject('ogg', 16000, 16000),
  subject('flac', 44100),
  subject('flac', 24000),
  subject('flac', 24000, undefined, 'pcm_f32le'),
]

const engine = await createEngine()
const native = loadNative()
const loadBefore = os.loadavg()[0]!
const stats = (values: number[]) => ({ median: median(values), p95: quantile(values, 0.95) })

// The PCM of the 1000-word text at each rate, made once.
const pcm = new Map<number, Buffer>()
for (const rate of new Set(SUBJECTS.map((s) => s.format.sample_rate))) {
  pcm.set(rate, await engine.synthesize(request(THOUSAND_WORDS, { container: 'raw', encoding: 'pcm_f32le', sample_rate: rate })))
}
const audioSeconds = pcm.get(24000)!.length / 4 / 24000

async function encodeOnce(config: NativeEncoderConfig, samples: Buffer, pieceSeconds: number): Promise<{ ms: number; bytes: number }> {
  const encoder = new native.AudioEncoder(config)
  const step = Math.round(config.sampleRate * pieceSeconds) * 4
  const start = performance.now()
  let bytes = 0
  for (let at = 0; at < samples.length; at += step) bytes += (await encoder.encode(samples.subarray(at, at + step))).length
  bytes += (await encoder.finish()).length
  return { ms: performance.now() - start, bytes }
}

const encodeRows: string[] = []
for (const s of SUBJECTS) {
  const samples = pcm.get(s.config.sampleRate)!
  await encodeOnce(s.config, samples, s.pieceSeconds)  // warm-up
  const runs: { ms: number; bytes: number }[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await encodeOnce(s.config, samples, s.pieceSeconds))
  const rtf = stats(runs.map((r) => r.ms / 1000 / audioSeconds))
  const bytes = runs[0]!.bytes
  const pcmBytes = (samples.length / 4) * 2
  encodeRows.push(`| ${s.label} | ${rtf.median.toPrecision(3)} | ${rtf.p95.toPrecision(3)} | ${(bytes / 1024).toFixed(0)} KiB | ${((bytes * 8) / audioSeconds / 1000).toFixed(1)} kb/s | ${(pcmBytes / bytes).toFixed(1)}× |`)
}

// End to end: the same text through synthesize() in each container, against raw 16-bit PCM.
async function wallMs(format: object, transcript: string): Promise<number> {
  const start = performance.now()
  await engine.synthesize(request(transcript, format))
  return performance.now() - start
}
async function firstAudioMs(format: object): Promise<number> {
  const start = performance.now()
  for await (const chunk of engine.stream(request(TWO_SENTENCES, format))) {
    if (chunk.length > 0) return performance.now() - start
  }
  return Number.NaN
}
const e2eSubjects: [string, object][] = [
  ['raw 24 kHz 16-bit (baseline)', { container: 'raw', sample_rate: 24000 }],
  ...SUBJECTS.filter((s) => s.config.sampleRate === 24000 && s.pieceSeconds === PIECE_SECONDS).map((s): [string, object] => [s.label, s.format]),
]
const e2e = new Map<string, { wall: number[]; first: number[] }>(e2eSubjects.map(([label]) => [label, { wall: [], first: [] }]))
for (const [, format] of e2eSubjects) await wallMs(format, TWO_SENTENCES)  // warm-up
// Interleaved rounds, so a change in the machine's load falls on every subject alike.
for (let i = 0; i < RUNS; i++) {
  for (const [label, format] of e2eSubjects) {
    e2e.get(label)!.wall.push(await wallMs(format, THOUSAND_WORDS))
    e2e.get(label)!.first.push(await firstAudioMs(format))
  }
}
const baseline = e2e.get(e2eSubjects[0]![0])!
const e2eRows = e2eSubjects.map(([label]) => {
  const { wall, first } = e2e.get(label)!
  const w = stats(wall)
  const f = stats(first)
  const overhead = label === e2eSubjects[0]![0] ? '—' : `${(((w.median - median(baseline.wall)) / median(baseline.wall)) * 100).toFixed(1)} %`
  return `| ${label} | ${w.median.toFixed(0)} ms (${w.p95.toFixed(0)}) | ${overhead} | ${f.median.toFixed(1)} ms (${f.p95.toFixed(1)}) |`
})
const loadAfter = os.loadavg()[0]!

const section = writeSection('encode', `## Compressed audio

Generated by \`node --import tsx bench/studies/compressed-audio.ts ${RUNS}\` on ${new Date().toISOString()}: ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown'}),
Node ${process.version}; 1-minute load average ${loadBefore.toFixed(2)} at the start, ${loadAfter.toFixed(2)} at the end (other work shares the machine:
every figure carries its load). The text is the 1000-word passage of bench/harness/texts.ts on espeak-ng (Sarah), ${audioSeconds.toFixed(1)} s of audio.
Median (p95) of ${RUNS} runs after a warm-up.

### Encoding alone

The PCM fed to the native encoder in ${PIECE_SECONDS * 1000} ms pieces (unless the row says otherwise), each one call through the worker pool (as a stream feeds it),
then flushed: real-time factor = encoding time / audio time. Size is the whole file; the ratio is against 16-bit PCM at the same rate.

| container, rate, bit rate | RTF median | RTF p95 | size | average bit rate | smaller than PCM |
| --- | --- | --- | --- | --- | --- |
${encodeRows.join('\n')}

### End to end, against raw PCM

\`synthesize()\` of the 1000-word text (wall time, and its overhead over raw 16-bit PCM at the same rate), and the first
audio bytes of a \`stream()\` of two sentences (an encoder holds back what does not fill a frame).

| format (24 kHz) | synthesize, 1000 words | overhead | first audio, two sentences |
| --- | --- | --- | --- |
${e2eRows.join('\n')}

Synthesis itself is cheap on espeak-ng: the raw PCM comes at a real-time factor of ${(median(baseline.wall) / 1000 / audioSeconds).toPrecision(2)}, so the
encoder's cost (first table) is most of a compressed request's wall time here; next to a neural voice (RTF about 0.04,
see the neural section) it is a small part. Opus runs at libopus's default complexity 10; in its speech modes (SILK or
hybrid, which it picks at low bit rates) it costs several times its CELT mode (the 64 kb/s row).

A stream hands its encoder longer stretches when the reader falls behind: the "${LONG_PIECE_SECONDS} s pieces" row is the
same encoding in such calls. In the quiet run of 2026-11-24 (load 0.4-1.3) every compressed request took less than
synthesis plus encoding alone: the pool synthesises the next chunks while one is encoded. Under a high load (8-14 on 2 cores) the
end-to-end figures came out several times higher: long calls are scheduled worse than short ones there.
`)
console.log(section)
await engine.close()
process.exit(0)
