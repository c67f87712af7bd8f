// Run inside a project that installed the svc-tts tarball (scripts/test-package.mjs, and the
// minimal Debian root check in docs/building.md): speaks with espeak-ng (English and French) and a
// flite voice, checks that each WAV holds real audio and that MP3, Ogg and FLAC files come out, that
// ONNX Runtime opens on first use, and that every shared library the process mapped is either the
// system's core (glibc, libstdc++, libgcc_s) or the installed packages' own.
import { readFileSync } from 'node:fs'
import { createEngine, readWavHeader } from 'svc-tts'

const CORE = /\/(ld-linux-x86-64|libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s|libnss_\w+)\.so/

/** Seconds of audio in a 16-bit mono WAV, and its RMS level (0-1). */
function measureWav(wav) {
  const { dataOffset, dataSize, sampleRate } = readWavHeader(wav)
  const samples = Math.min(dataSize, wav.length - dataOffset) >> 1
  let sum = 0
  for (let i = 0; i < samples; i++) sum += (wav.readInt16LE(dataOffset + 2 * i) / 32768) ** 2
  return { seconds: samples / sampleRate, rms: Math.sqrt(sum / samples) }
}

const engine = await createEngine()
const { voices } = await engine.voices.list({ limit: 100 })
const voice = { mode: 'id', id: voices.find((v) => v.name === 'Sarah').voice_id }
const format = { container: 'wav', encoding: 'pcm_s16le', sample_rate: 22050 }
const cases = [
  ['espeak-ng en', { model_id: 'svc_flash_v1.5', transcript: 'Hello from a freshly installed package.' }],
  ['espeak-ng fr', { model_id: 'svc_flash_v1.5', language: 'fr', transcript: "Bonjour, c'est une belle journée." }],
  ['flite slt', { model_id: 'svc_pro_v1.0', transcript: 'Hello from a freshly installed package.' }],
]
for (const [name, request] of cases) {
  const { seconds, rms } = measureWav(await engine.synthesize({ ...request, voice, output_format: format }))
  if (!(seconds > 1 && seconds < 10 && rms > 0.01)) throw new Error(`${name}: ${seconds} s at RMS ${rms} is not speech`)
  console.log(`${name}: ${seconds.toFixed(2)} s of audio, RMS ${rms.toFixed(3)}`)
}
// The encoders' libraries (LAME, libopus with libogg, libFLAC) load from beside the addon too.
const signatures = { mp3: (b) => b[0] === 0xff && (b[1] & 0xe0) === 0xe0, ogg: (b) => b.toString('latin1', 0, 4) === 'OggS', flac: (b) => b.toString('latin1', 0, 4) === 'fLaC' }
for (const [container, isFile] of Object.entries(signatures)) {
  const file = await engine.synthesize({ ...cases[0][1], voice, output_format: { container } })
  if (!(isFile(file) && file.length > 1000)) throw new Error(`${container}: ${file.length} bytes that are not a ${container} file`)
  console.log(`${container}: ${file.length} bytes`)
}
// ONNX Runtime is opened with the first neural use, from beside the addon, and not before.
const mappedLibraries = () => [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\n').map((l) => l.split(/\s+/)[5] ?? '').filter((p) => /\.so(\.|$)/.test(p)))]
if (mappedLibraries().some((p) => p.includes('libonnxruntime'))) throw new Error('ONNX Runtime was loaded before any neural use')
console.log(`ONNX Runtime ${engine.onnxRuntimeVersion()}`)
if (!mappedLibraries().some((p) => p.includes('libonnxruntime'))) throw new Error('ONNX Runtime is not mapped after its first use')
await engine.close()

const libraries = mappedLibraries()
const foreign = libraries.filter((p) => !p.startsWith(process.cwd() + '/') && !CORE.test(p))
console.log(`shared libraries mapped: ${libraries.length}, from outside the project and the system core: ${foreign.length ? foreign.join(' ') : 'none'}`)
if (foreign.length) process.exit(1)
