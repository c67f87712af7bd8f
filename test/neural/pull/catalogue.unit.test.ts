// The Piper catalogue as rhasspy/piper-voices publishes it (voices.json), read from a hand-written
// copy of real entries; the Kokoro catalogue from the hub's file listing; and the lookup of a name.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { closestNames, filterCatalogue, findEntry } from '../../../lib/neural/catalogue/catalogue.js'
import { kokoroEntries } from '../../../lib/neural/catalogue/kokoro.js'
import { parsePiperCatalogue } from '../../../lib/neural/catalogue/piper.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const voicesJson = JSON.parse(readFileSync(path.join(here, '../../fixtures/models/voices.json'), 'utf8')) as Record<string, Record<string, unknown>>

describe('the Piper catalogue (voices.json)', () => {
  const entries = parsePiperCatalogue(voicesJson)

  it('reads every voice with its language, quality, speakers and the model and config files with sizes and MD5 digests', () => {
    expect(entries.map((e) => e.name).sort()).toEqual(['de_DE-thorsten-high', 'en_GB-alan-low', 'en_US-lessac-medium', 'en_US-libritts_r-medium', 'fr_FR-siwis-medium'])
    const lessac = findEntry(entries, 'en_US-lessac-medium')
    expect(lessac).toMatchObject({ type: 'piper', languages: ['en_US'], quality: 'medium', speakers: ['default'], repo: 'rhasspy/piper-voices', revision: 'v1.0.0' })
    // The model card stays on the hub; the two files a voice needs are pulled beside each other.
    expect(lessac.files).toEqual([
      { remote: 'en/en_US/lessac/medium/en_US-lessac-medium.onnx', local: 'en_US-lessac-medium.onnx', size: 63201294, md5: '2be4b5b5ae5f8d9e2ecf2a9ac6fcb5bf' },
      { remote: 'en/en_US/lessac/medium/en_US-lessac-medium.onnx.json', local: 'en_US-lessac-medium.onnx.json', size: 4885, md5: 'a3a7d5e1b2f1a5f6a0d3c1e8d2b4c6e9' },
    ])
  })

  it('lists a multi-speaker voice\'s speakers in speaker-id order', () => {
    expect(findEntry(entries, 'en_US-libritts_r-medium').speakers).toEqual(['3887', '3922', '8699', '4535'])
  })

  it('filters by language family or full code, and by quality', () => {
    expect(filterCatalogue(entries, { language: 'en' }).map((e) => e.name)).toEqual(['en_US-lessac-medium', 'en_US-libritts_r-medium', 'en_GB-alan-low'])
    expect(filterCatalogue(entries, { language: 'en-GB' }).map((e) => e.name)).toEqual(['en_GB-alan-low'])
    expect(filterCatalogue(entries, { language: 'en', quality: 'low' }).map((e) => e.name)).toEqual(['en_GB-alan-low'])
    expect(filterCatalogue(entries, { quality: 'high' }).map((e) => e.name)).toEqual(['de_DE-thorsten-high'])
  })

  it('refuses an entry whose file lacks its digest, naming the field', () => {
    const broken = structuredClone(voicesJson)
    const files = broken['en_GB-alan-low']!.files as Record<string, Record<string, unknown>>
    delete files['en/en_GB/alan/low/en_GB-alan-low.onnx']!.md5_digest
    expect(() => parsePiperCatalogue(broken)).toThrow(/en_GB-alan-low\.files\.en\/en_GB\/alan\/low\/en_GB-alan-low\.onnx\.md5_digest/)
  })
})

describe('the Kokoro catalogue (the hub\'s listing of onnx-community/Kokoro-82M-v1.0-ONNX)', () => {
  const lfs = (p: string, size: number, digit: string) => ({ type: 'file' as const, path: p, size: 134, lfs: { oid: digit.repeat(64), size } })
  const entries = kokoroEntries(
    [lfs('onnx/model.onnx', 325532387, 'a'), lfs('onnx/model_quantized.onnx', 92361116, 'b'), lfs('onnx/model_q4f16.onnx', 154580000, 'c')],
    [lfs('voices/af_heart.bin', 522240, 'd'), lfs('voices/bm_george.bin', 522240, 'e'), lfs('voices/ff_siwis.bin', 522240, 'f')],
  )

  it('makes one pack per precision, each with every voice, sized and digested from the listing', () => {
    expect(entries.map((e) => [e.name, e.quality])).toEqual([['kokoro-v1.0', 'fp32'], ['kokoro-v1.0-q8', 'q8'], ['kokoro-v1.0-q4f16', 'q4f16']])
    const q8 = entries[1]!
    expect(q8.speakers).toEqual(['af_heart', 'bm_george', 'ff_siwis'])
    expect(q8.languages).toEqual(['en', 'fr'])
    expect(q8.files[0]).toEqual({ remote: 'onnx/model_quantized.onnx', local: 'model.onnx', size: 92361116, sha256: 'b'.repeat(64) })
    expect(q8.files[3]).toEqual({ remote: 'voices/ff_siwis.bin', local: 'voices/ff_siwis.bin', size: 522240, sha256: 'f'.repeat(64) })
  })
})

describe('an unknown name', () => {
  const entries = parsePiperCatalogue(voicesJson)

  it('is MODEL_NOT_IN_CATALOGUE with the closest names, nearest first', () => {
    let thrown: unknown
    try {
      findEntry(entries, 'en_US-lesac-medium')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'MODEL_NOT_IN_CATALOGUE', status: 404 })
    expect((thrown as { extra: { closest: string[] } }).extra.closest[0]).toBe('en_US-lessac-medium')
    expect((thrown as Error).message).toMatch(/closest: en_US-lessac-medium, /)
  })

  it('a part of a name finds the names that contain it first', () => {
    expect(closestNames('thorsten', entries.map((e) => e.name), 2)).toEqual(['de_DE-thorsten-high', 'en_GB-alan-low'])
  })
})
