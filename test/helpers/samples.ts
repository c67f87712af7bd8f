/** Voice samples for cloning tests, made with the engine and converted with sox. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Engine, ModelId } from '../../lib/index.js'
import { voiceId } from './engine.js'

export const SAMPLE_TEXT =
  'Hello there. This is a short recording of my voice, made for cloning. I hope it sounds like me, more or less.'

const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-samples-'))

/** A WAV of a predefined voice (16 kHz s16), about six seconds. */
export async function speech(engine: Engine, voiceName = 'Sarah', model: ModelId = 'svc_flash_v1.0'): Promise<Buffer> {
  return engine.synthesize({
    model_id: model,
    transcript: SAMPLE_TEXT,
    voice: { mode: 'id', id: voiceId(voiceName) },
    output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 16000 },
  })
}

let counter = 0

/** Runs sox on a file: `sox <in> <soxArgs...>`, output type from the extension. */
export function sox(input: Buffer, extension: string, args: string[] = [], effects: string[] = []): Buffer {
  const source = path.join(dir, `in${counter}.wav`)
  const target = path.join(dir, `out${counter++}.${extension}`)
  writeFileSync(source, input)
  execFileSync('sox', [source, ...args, target, ...effects])
  return readFileSync(target)
}

/** sox synthesised audio: `sox -n -r 16000 -c 1 out.wav synth ...` and friends. */
export function soxSynth(effects: string[]): Buffer {
  const target = path.join(dir, `synth${counter++}.wav`)
  execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', target, ...effects])
  return readFileSync(target)
}

export const MP3_SAMPLE = readFileSync(new URL('../fixtures/voices/speaker.mp3', import.meta.url))

/** POST /voices/clone's form: MP3_SAMPLE as the clip, an English voice named `name`. */
export function mp3CloneForm(name: string): FormData {
  const form = new FormData()
  form.set('clip', new Blob([new Uint8Array(MP3_SAMPLE)], { type: 'audio/mpeg' }), 'speaker.mp3')
  form.set('name', name)
  form.set('language', 'en')
  return form
}
