import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { PREDEFINED_VOICES, type SynthesisRequest } from '../lib/index.js'
import { decodeWav } from './helpers/audio.js'
import { collect, testEngine } from './helpers/engine.js'

const run = promisify(execFile)
const SENTENCE = 'The birch canoe slid on the smooth planks.'
const PARAGRAPH = `${SENTENCE} Glue the sheet to the dark blue background, then let it dry. It is easy to tell the depth of a well.`
const FLITE_VOICES = PREDEFINED_VOICES.filter((voice) => voice.rendering.flite)

describe('reproducible output (flite voices)', async () => {
  const engine = await testEngine()
  const scratch = await mkdtemp(path.join(tmpdir(), 'svc-tts-cli-'))
  afterAll(() => rm(scratch, { recursive: true, force: true }))
  const request = (voice: (typeof FLITE_VOICES)[number], transcript: string): SynthesisRequest => ({
    model_id: 'svc_pro_v1.0',
    transcript,
    voice: { mode: 'id', id: voice.record.voice_id },
    output_format: { container: 'raw', sample_rate: 16000 },
  })

  it('covers the four flite voices', () => {
    expect(FLITE_VOICES.map((voice) => voice.rendering.flite).sort()).toEqual(['awb', 'kal16', 'rms', 'slt'])
  })

  for (const voice of FLITE_VOICES) {
    const name = voice.rendering.flite!
    it(`${name}: a sentence at 16 kHz is byte-identical to \`flite -voice ${name} -t … -o file.wav\``, async () => {
      const file = path.join(scratch, `${name}.wav`)
      await run('flite', ['-voice', name, '-t', SENTENCE, '-o', file])
      const cli = decodeWav(await readFile(file))
      expect(cli.sampleRate).toBe(16000)
      const ours = await engine.synthesize(request(voice, SENTENCE))
      expect(ours.length).toBe(cli.data.length)
      expect(ours.equals(cli.data)).toBe(true)
    })

    it(`${name}: identical requests give identical bytes, also while 8 other streams run, and streamed chunks join to the one-shot audio`, async () => {
      const alone = await engine.synthesize(request(voice, PARAGRAPH))
      const others = FLITE_VOICES.flatMap((other) => [other, other]).map((other) => collect(engine.speak(request(other, PARAGRAPH))))
      const [crowded, streamed] = await Promise.all([
        engine.synthesize(request(voice, PARAGRAPH)),
        collect(engine.stream(request(voice, PARAGRAPH))),
        ...others,
      ])
      expect(alone.length).toBeGreaterThan(16000 * 2 * 5)
      expect(crowded.equals(alone)).toBe(true)
      expect(Buffer.concat(streamed).equals(alone)).toBe(true)
    })
  }
})
