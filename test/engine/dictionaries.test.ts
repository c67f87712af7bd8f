/**
 * Pronunciation dictionaries through the engine: the library API and its versions in SQLite, and
 * a request's dictionaries heard in its audio (a phonemes rule is the <phonemes> tag byte for
 * byte, an alias rule is the alias spoken, the longest phrase wins, a version is what it was).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../lib/index.js'
import { TtsError } from '../../lib/errors.js'
import { testEngine, voiceId } from '../helpers/engine.js'

const SARAH = { mode: 'id', id: voiceId('Sarah') } as const
const WAV = { container: 'wav', sample_rate: 16000 } as const

async function failure(work: Promise<unknown>): Promise<TtsError> {
  const error = await work.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(TtsError)
  return error as TtsError
}

describe('pronunciation dictionaries', async () => {
  const engine = await testEngine()
  const say = (transcript: string, dictionaries?: { id: string; version?: number }[], model_id: 'svc_flash_v1.5' | 'svc_pro_v1.0' = 'svc_flash_v1.5') =>
    engine.synthesize({ model_id, transcript, voice: SARAH, output_format: WAV, ...(dictionaries && { pronunciation_dictionaries: dictionaries }) })

  it('are created, listed, read, updated as new versions and deleted', async () => {
    const created = await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    expect(created).toMatchObject({ version: 1, name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    expect(created.dictionary_id).toMatch(/^[0-9a-f-]{36}$/)
    const updated = await engine.dictionaries.update(created.dictionary_id, { rules: [{ text: 'Nguyen', alias: 'win' }] })
    expect(updated).toMatchObject({ dictionary_id: created.dictionary_id, version: 2, name: 'Names' })
    expect((await engine.dictionaries.get(created.dictionary_id, 1)).rules).toEqual(created.rules)
    expect((await engine.dictionaries.get(created.dictionary_id)).version).toBe(2)
    expect((await engine.dictionaries.list()).find((d) => d.dictionary_id === created.dictionary_id)).toMatchObject({ version: 2, rule_count: 1 })
    await engine.dictionaries.delete(created.dictionary_id)
    expect((await failure(engine.dictionaries.get(created.dictionary_id))).code).toBe('DICTIONARY_NOT_FOUND')
    expect((await failure(say('Hi.', [{ id: created.dictionary_id }]))).status).toBe(404)
  })

  it('refuse a rule whose IPA is another alphabet, or too long for a <phonemes> tag', async () => {
    for (const phonemes of ['w@n', '/wɪn/', 'ə ə ə']) {
      expect((await failure(engine.dictionaries.create({ name: 'Bad', rules: [{ text: 'x', phonemes }] }))).code).toBe('INVALID_PHONEMES')
    }
    expect((await failure(engine.dictionaries.create({ name: 'Bad', rules: [{ text: 'x', phonemes: 'a', alias: 'b' } as never] }))).code).toBe('INVALID_REQUEST')
  })

  it('a phonemes rule sounds as the <phonemes> tag in the word\'s place, byte for byte, and the word keeps its name', async () => {
    const { dictionary_id: id } = await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    for (const model of ['svc_flash_v1.5', 'svc_pro_v1.0'] as const) {
      expect((await say('Mister Nguyen, welcome.', [{ id }], model)).equals(await say('Mister <phonemes>wɪn</phonemes>, welcome.', undefined, model))).toBe(true)
    }
    expect((await say('Mister NGUYEN.', [{ id }])).equals(await say('Mister <phonemes>wɪn</phonemes>.'))).toBe(true)  // any case
    const { alignment } = await engine.synthesizeWithTimestamps({ model_id: 'svc_flash_v1.5', transcript: 'Mister Nguyen, welcome.', voice: SARAH, pronunciation_dictionaries: [{ id }] })
    expect(alignment.words).toEqual(['Mister', 'Nguyen', 'welcome.'])
  })

  it('an alias rule is the alias spoken; the longest phrase wins; a case-sensitive rule matches only its case', async () => {
    const { dictionary_id: id } = await engine.dictionaries.create({
      name: 'Places',
      rules: [
        { text: 'New', alias: 'Old' },
        { text: 'new york', alias: 'the Big Apple' },
        { text: 'US', alias: 'United States', case_sensitive: true },
      ],
    })
    expect((await say('I love New York and new cars.', [{ id }])).equals(await say('I love the Big Apple and Old cars.'))).toBe(true)
    expect((await say('The US told us.', [{ id }])).equals(await say('The United States told us.'))).toBe(true)
    expect((await say('New, York.', [{ id }])).equals(await say('Old, York.'))).toBe(true)  // a phrase does not run past punctuation
  })

  it('a new version changes the audio only for the requests that name it (or name none)', async () => {
    const { dictionary_id: id } = await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    const first = await say('Nguyen.', [{ id }])
    await engine.dictionaries.update(id, { rules: [{ text: 'Nguyen', phonemes: 'ŋuːjən' }] })
    expect((await say('Nguyen.', [{ id, version: 1 }])).equals(first)).toBe(true)
    const latest = await say('Nguyen.', [{ id }])
    expect(latest.equals(first)).toBe(false)
    expect(latest.equals(await say('<phonemes>ŋuːjən</phonemes>.'))).toBe(true)
    expect((await failure(say('Nguyen.', [{ id, version: 3 }]))).code).toBe('DICTIONARY_NOT_FOUND')
  })

  it('apply inside SSML too, and on a session', async () => {
    const { dictionary_id: id } = await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
    expect((await say('<speak>Mister Nguyen.</speak>', [{ id }])).equals(await say('Mister <phonemes>wɪn</phonemes>.'))).toBe(true)
    const session = await engine.open({ model_id: 'svc_flash_v1.5', voice: SARAH, output_format: { sample_rate: 16000 }, pronunciation_dictionaries: [{ id }] })
    session.write('Mister ')
    session.write('Nguyen.')
    session.end()
    const chunks: Buffer[] = []
    for await (const chunk of session) chunks.push(chunk.audio)
    const raw = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Mister <phonemes>wɪn</phonemes>.', voice: SARAH, output_format: { container: 'raw', sample_rate: 16000 } })
    expect(Buffer.concat(chunks).equals(raw)).toBe(true)
  })

  describe('in a data directory', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-dictionaries-'))
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

    it('outlive the engine, every version', async () => {
      const first = await createEngine({ dataDir })
      const { dictionary_id: id } = await first.dictionaries.create({ name: 'Kept', rules: [{ text: 'a', alias: 'b' }] })
      await first.dictionaries.update(id, { name: 'Kept too' })
      await first.close()
      const second = await createEngine({ dataDir })
      expect((await second.dictionaries.get(id, 1)).name).toBe('Kept')
      expect(await second.dictionaries.get(id)).toMatchObject({ version: 2, name: 'Kept too', rules: [{ text: 'a', alias: 'b' }] })
      await second.close()
    })

    it('apply by default to requests that name none, when the engine is told so', async () => {
      const maker = await createEngine({ dataDir })
      const { dictionary_id: id } = await maker.dictionaries.create({ name: 'House', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })
      await maker.close()
      const engine = await createEngine({ dataDir, pronunciationDictionaries: [{ id }] })
      const speak = (transcript: string, extra = {}) => engine.synthesize({ model_id: 'svc_flash_v1.5', transcript, voice: SARAH, output_format: WAV, ...extra })
      expect((await speak('Hi Nguyen.')).equals(await speak('Hi <phonemes>wɪn</phonemes>.'))).toBe(true)
      expect((await speak('Hi Nguyen.', { pronunciation_dictionaries: [] })).equals(await speak('Hi <phonemes>wɪn</phonemes>.'))).toBe(false)
      await engine.close()
    })
  })
})
