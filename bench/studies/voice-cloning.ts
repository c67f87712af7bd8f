/**
 * `node --import tsx bench/studies/voice-cloning.ts`: clone fidelity and the voice transform's cost.
 *
 * Speakers are made with the builtin engines (espeak-ng variants at several pitches, flite voices)
 * and with sox (`pitch`, which moves pitch and formants together, and `speed`). Each is cloned;
 * the clone then speaks a different text on espeak-ng (svc_flash_v1.0) and flite (svc_pro_v1.0),
 * and the project's own analysis (YIN median pitch, LPC formant spacing) compares it with the
 * sample, beside the same figures for the predefined voice the clone was built on. Writes the
 * section between the voice-cloning markers of bench/RESULTS.md and prints it.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createEngine, PREDEFINED_VOICES, type ModelId, type SampleRate, type StoredVoice } from '../../lib/index.js'
import { loadNative } from '../../lib/native.js'
import { writeSection } from '../harness/results.js'

const SAMPLE_TEXT = 'Hello there. This is a short recording of my voice, made for cloning. I hope it sounds like me, more or less.'
const TEST_TEXT = 'Good morning. I would like to book a table for two people at seven tonight, near the window if possible.'
const MODELS = [['espeak-ng', 'svc_flash_v1.0'], ['flite', 'svc_pro_v1.0']] as const

const engine = await createEngine()
const native = loadNative()
const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-clone-bench-'))
const byName = (name: string) => PREDEFINED_VOICES.find((v) => v.record.name === name)!

async function speak(voiceId: string, model: ModelId, text: string, format: 'wav' | 'raw', rate: SampleRate = 16000): Promise<Buffer> {
  return engine.synthesize({
    model_id: model,
    transcript: text,
    voice: { mode: 'id', id: voiceId },
    output_format: { container: format, encoding: format === 'wav' ? 'pcm_s16le' : 'pcm_f32le', sample_rate: rate },
  })
}

function sox(wav: Buffer, effects: string[]): Buffer {
  const input = path.join(dir, 'in.wav')
  const output = path.join(dir, 'out.wav')
  writeFileSync(input, wav)
  execFileSync('sox', [input, output, ...effects])
  return readFileSync(output)
}

/** Speakers: [label, how it was made, sample WAV]. */
async function speakers(): Promise<[string, Buffer][]> {
  const sarahEspeak = await speak(byName('Sarah').record.voice_id, 'svc_flash_v1.0', SAMPLE_TEXT, 'wav')
  const richardEspeak = await speak(byName('Richard').record.voice_id, 'svc_flash_v1.0', SAMPLE_TEXT, 'wav')
  const alanEspeak = await speak(byName('Alan').record.voice_id, 'svc_flash_v1.0', SAMPLE_TEXT, 'wav')
  const sarahFlite = await speak(byName('Sarah').record.voice_id, 'svc_pro_v1.0', SAMPLE_TEXT, 'wav')
  const richardFlite = await speak(byName('Richard').record.voice_id, 'svc_pro_v1.0', SAMPLE_TEXT, 'wav')
  const alanFlite = await speak(byName('Alan').record.voice_id, 'svc_pro_v1.0', SAMPLE_TEXT, 'wav')
  return [
    ['espeak-ng en-us+f3', sarahEspeak],
    ['espeak-ng en-us+m1', alanEspeak],
    ['espeak-ng en-us+m3, sox pitch +400 cents', sox(richardEspeak, ['pitch', '400'])],
    ['espeak-ng en-us+f3, sox pitch -300 cents', sox(sarahEspeak, ['pitch', '-300'])],
    ['flite slt', sarahFlite],
    ['flite rms', richardFlite],
    ['flite awb, sox speed 1.15 (pitch and formants +15 %)', sox(alanFlite, ['speed', '1.15'])],
    ['flite slt, sox pitch -700 cents', sox(sarahFlite, ['pitch', '-700'])],
    ['flite awb, sox speed 0.9', sox(alanFlite, ['speed', '0.9'])],
  ]
}

async function measure(voiceId: string, model: ModelId) {
  const m = await native.analysePcm(await speak(voiceId, model, TEST_TEXT, 'raw'), 16000)
  return { pitchHz: m.pitchHz, formantScale: m.formantSpacingHz / 1000 }
}

const semitones = (a: number, b: number) => 12 * Math.log2(a / b)
const percent = (a: number, b: number) => 100 * (a / b - 1)
const signed = (x: number, digits: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`

/** The predefined voice a clone's base is: same rendering on that backend. */
function basePredefined(stored: StoredVoice, backend: 'espeak-ng' | 'flite'): StoredVoice | undefined {
  return PREDEFINED_VOICES.find((v) =>
    v.record.language === 'en' && (backend === 'flite' ? v.rendering.flite === stored.rendering.flite : v.rendering.espeakVariant === stored.rendering.espeakVariant))
}

const rows: string[] = []
const cloneSeconds: number[] = []
let passes = 0
let total = 0
for (const [label, wav] of await speakers()) {
  const sample = await native.analyseSample(wav, 60)
  const started = performance.now()
  const record = await engine.voices.clone(wav, { name: label, language: 'en' })
  cloneSeconds.push((performance.now() - started) / 1000)
  const stored = await engine.voices.find(record.voice_id)
  const sampleFormant = sample.formantSpacingHz / 1000
  for (const [backend, model] of MODELS) {
    const clone = await measure(record.voice_id, model)
    const base = basePredefined(stored, backend)!
    const predefined = await measure(base.record.voice_id, model)
    const pitchError = semitones(clone.pitchHz, sample.pitchHz)
    const formantError = percent(clone.formantScale, sampleFormant)
    total++
    if (Math.abs(pitchError) <= 2 && Math.abs(formantError) <= 10) passes++
    rows.push(`| ${label} | ${sample.pitchHz.toFixed(0)} Hz, ${sampleFormant.toFixed(3)} | ${backend} | ` +
      `${clone.pitchHz.toFixed(0)} Hz (${signed(pitchError, 2)} st), ${clone.formantScale.toFixed(3)} (${signed(formantError, 1)} %) | ` +
      `${base.record.name}: ${predefined.pitchHz.toFixed(0)} Hz (${signed(semitones(predefined.pitchHz, sample.pitchHz), 2)} st), ` +
      `${predefined.formantScale.toFixed(3)} (${signed(percent(predefined.formantScale, sampleFormant), 1)} %) |`)
  }
  await engine.voices.delete(record.voice_id)
}

/** Transform cost: RTF of the native transform alone, and first audio of a clone against its base. */
async function firstAudioMs(voiceId: string, model: ModelId): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < 25; i++) {
    const started = performance.now()
    const stream = engine.stream({ model_id: model, transcript: 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.', voice: { mode: 'id', id: voiceId }, output_format: { sample_rate: 22050 } })
    for await (const _chunk of stream) {
      times.push(performance.now() - started)
      break
    }
    await stream.return(undefined)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

const long = await speak(byName('Sarah').record.voice_id, 'svc_flash_v1.0', `${TEST_TEXT} ${SAMPLE_TEXT} ${TEST_TEXT}`, 'raw', 22050)
const audioSeconds = long.length / 4 / 22050
const rtfs: number[] = []
for (let i = 0; i < 5; i++) {
  const started = performance.now()
  await native.transformVoice(long, 22050, { pitchScale: 1.1, formantScale: 0.9 })
  rtfs.push((performance.now() - started) / 1000 / audioSeconds)
}
rtfs.sort((a, b) => a - b)
const shifted = await engine.voices.clone(sox(await speak(byName('Sarah').record.voice_id, 'svc_flash_v1.0', SAMPLE_TEXT, 'wav'), ['pitch', '-300']), { name: 'cost', language: 'en' })
const shiftedStored = await engine.voices.find(shifted.voice_id)
const costRows: string[] = []
for (const [backend, model] of MODELS) {
  const base = basePredefined(shiftedStored, backend)!
  const cloneMs = await firstAudioMs(shifted.voice_id, model)
  const baseMs = await firstAudioMs(base.record.voice_id, model)
  costRows.push(`| ${backend} | ${base.record.name} ${baseMs.toFixed(1)} ms | ${cloneMs.toFixed(1)} ms | ${signed(cloneMs - baseMs, 1)} ms |`)
}

const section = writeSection('voice-cloning', `## Voice cloning

Generated by \`node --import tsx bench/studies/voice-cloning.ts\` on ${new Date().toISOString()} (${(await import('node:os')).cpus().length} cores, load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)}).
Each speaker's sample (about 6 s) is cloned; the clone speaks a different sentence; the project's own analysis
(aubio YIN median pitch; LPC formant spacing as a scale of a 17.5 cm vocal tract, 1.000 = 1000 Hz) measures it against the sample.
The last column is the predefined voice the clone was built on, speaking the same sentence unchanged. Targets: pitch within 2 semitones, formant scale within 10 %.

| speaker (sample) | sample: median pitch, formant scale | backend | clone | closest predefined voice |
| --- | --- | --- | --- | --- |
${rows.join('\n')}

**${passes} of ${total}** clone renderings are within both targets. Cloning took ${Math.min(...cloneSeconds).toFixed(1)}–${Math.max(...cloneSeconds).toFixed(1)} s a voice (analysis plus the closed-loop fit, about ten calibration renders).

### Cost of the voice transform

- Rubber Band R3 (pitch ×1.1, formants ×0.9), mono 22.05 kHz, ${audioSeconds.toFixed(1)} s of speech: real-time factor ${rtfs[2]!.toFixed(3)} (median of 5; ${(1 / rtfs[2]!).toFixed(0)}× faster than real time) on one pool thread.
- First audio of the two-sentence text at 22.05 kHz (median of 25), a clone against its base voice (the transform works in real-time mode, passing audio on as the backend makes it):

| backend | base voice | clone | added |
| --- | --- | --- | --- |
${costRows.join('\n')}
`)
console.log(section)
await engine.close()
process.exit(0)
