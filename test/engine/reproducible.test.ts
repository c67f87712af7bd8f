import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { LANGUAGES, PREDEFINED_VOICES, type Language, type SynthesisRequest } from '../../lib/index.js'
import { ESPEAK_LANGUAGE_VOICE } from '../../lib/engine/models.js'
import { planSpeech } from '../../lib/text/plan.js'
import { decodeWav } from '../helpers/audio.js'
import { runNodeWithDeadline } from '../helpers/deadline-child.js'
import { collect, testEngine } from '../helpers/engine.js'
import { PARK_SENTENCES } from '../helpers/sentences.js'

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

// The sentence as one clause (without its comma), then as two: three chunks, so that a request's
// later chunks may follow other requests' in espeak-ng.
const oneClause = (language: Language) => PARK_SENTENCES[language].replace(/[,،，、]/g, '')
const PARAGRAPHS = Object.fromEntries(LANGUAGES.map((language) => [language, `${oneClause(language)} ${PARK_SENTENCES[language]}`])) as Record<Language, string>
const root = path.resolve(import.meta.dirname, '../..')
const sha256 = (audio: Buffer) => createHash('sha256').update(audio).digest('hex')

describe('reproducible output (espeak-ng, every predefined voice)', async () => {
  const engine = await testEngine()
  const scratch = await mkdtemp(path.join(tmpdir(), 'svc-tts-espeak-cli-'))
  afterAll(() => rm(scratch, { recursive: true, force: true }))
  const request = (voice: (typeof PREDEFINED_VOICES)[number], transcript = PARAGRAPHS[voice.record.language]): SynthesisRequest => ({
    model_id: 'svc_flash_v1.0',
    transcript,
    voice: { mode: 'id', id: voice.record.voice_id },
    output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 },
  })
  // Every voice alone, one request after another; then every voice twice at once, one-shot and
  // streamed: 64 requests in 15 languages, each running while dozens of others do.
  let runs: Promise<{ alone: Buffer[]; crowded: Buffer[]; streamed: Buffer[] }> | undefined
  const results = () =>
    (runs ??= (async () => {
      const alone: Buffer[] = []
      for (const voice of PREDEFINED_VOICES) alone.push(await engine.synthesize(request(voice)))
      const together = await Promise.all(
        PREDEFINED_VOICES.map((voice) => Promise.all([engine.synthesize(request(voice)), collect(engine.stream(request(voice)))])),
      )
      return { alone, crowded: together.map(([crowded]) => crowded), streamed: together.map(([, streamed]) => Buffer.concat(streamed)) }
    })())

  it('covers every predefined voice in every language of svc_flash_v1.0', () => {
    expect(new Set(PREDEFINED_VOICES.map((voice) => voice.record.language))).toEqual(new Set(LANGUAGES))
    expect(PREDEFINED_VOICES.length).toBe(32)
  })

  for (const [i, voice] of PREDEFINED_VOICES.entries()) {
    const { name, language } = voice.record
    it(`${name} (${language}, ${voice.rendering.espeakVariant}): identical requests give identical bytes, also among 63 other requests, and streamed chunks join to the one-shot audio`, async () => {
      const { alone, crowded, streamed } = await results()
      expect(alone[i]!.length).toBeGreaterThan(22050 * 2)
      expect(crowded[i]!.equals(alone[i]!)).toBe(true)
      expect(streamed[i]!.equals(alone[i]!)).toBe(true)
    })
  }

  it('a request gives the same bytes in a fresh process as after other traffic', async () => {
    // The child reads the voices in reverse order: its first request meets espeak-ng as a new
    // process has it, the others follow other voices than they did here.
    const child = await runNodeWithDeadline(
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
        import { createHash } from 'node:crypto'
        const { createEngine, PREDEFINED_VOICES } = await import(${JSON.stringify(path.join(root, 'lib/index.ts'))})
        const paragraphs = ${JSON.stringify(PARAGRAPHS)}
        const engine = await createEngine()
        const digests = {}
        for (const voice of [...PREDEFINED_VOICES].reverse()) {
          const audio = await engine.synthesize({ model_id: 'svc_flash_v1.0', transcript: paragraphs[voice.record.language],
            voice: { mode: 'id', id: voice.record.voice_id }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 22050 } })
          digests[voice.record.name] = createHash('sha256').update(audio).digest('hex')
        }
        await engine.close()
        process.stdout.write(JSON.stringify(digests))
      `,
      ],
      { cwd: root, deadlineMs: 60_000 },
    )
    expect(child.stderr).toBe('')
    expect(child.status).toBe(0)
    const { crowded } = await results()
    const here = Object.fromEntries(PREDEFINED_VOICES.map((voice, i) => [voice.record.name, sha256(crowded[i]!)]))
    expect(JSON.parse(child.stdout)).toEqual(here)
  })

  it('a clause is byte-identical to `espeak-ng -s 175 -p 50 -v <voice> -w file.wav` given the text the engine gives espeak-ng, for every voice', async () => {
    // One clause: the engine speaks each clause on its own, espeak-ng's program a sentence at once.
    const sentence = (voice: (typeof PREDEFINED_VOICES)[number]) => oneClause(voice.record.language)
    const cli = await Promise.all(
      PREDEFINED_VOICES.map(async (voice, i) => {
        // What the engine gives espeak-ng: the clause as it is, Japanese as kuromoji's kana
        // readings, Mandarin as pinyin for the cmn-latn-pinyin voice.
        const plan = await planSpeech(sentence(voice), { language: voice.record.language, backend: 'espeak' })
        expect(plan.chunks).toHaveLength(1)
        expect(plan.chunks[0]!.pieces).toHaveLength(1)
        const piece = plan.chunks[0]!.pieces[0]!
        if (piece.kind !== 'text') throw new Error(`${voice.record.name}: a ${piece.kind} piece`)
        const name = (piece.espeakVoice ?? ESPEAK_LANGUAGE_VOICE[voice.record.language]) + voice.rendering.espeakVariant
        const file = path.join(scratch, `${i}.wav`)
        // -s and -p: the rate and pitch the engine sets (without -s the program reads Russian 5%
        // slower: its voice file says `speed 95`). The program runs as users run it, without the
        // sanitizer scripts/test-asan.sh preloads.
        await run('espeak-ng', ['-s', '175', '-p', '50', '-v', name, '-w', file, piece.text], { env: { ...process.env, LD_PRELOAD: '' } })
        return decodeWav(await readFile(file))
      }),
    )
    const ours = await Promise.all(PREDEFINED_VOICES.map((voice) => engine.synthesize(request(voice, sentence(voice)))))
    for (const [i, voice] of PREDEFINED_VOICES.entries()) {
      expect(cli[i]!.sampleRate, voice.record.name).toBe(22050)
      expect(ours[i]!.length, voice.record.name).toBe(cli[i]!.data.length)
      expect(ours[i]!.equals(cli[i]!.data), voice.record.name).toBe(true)
    }
  })
})
