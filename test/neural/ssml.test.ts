/**
 * SSML on a neural pack (the Piper fixture): a rate span is spoken on a stream of its own at that
 * speed (length_scale), and a document without renderings is the plain transcript.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../lib/index.js'
import { voiceId } from '../helpers/engine.js'
import { PIPER } from './fixtures.js'

const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } as const
const SENTENCE = 'The quick brown fox jumps over the lazy dog.'

describe('SSML on a neural pack', () => {
  let engine: Engine<'svc_pro_v1.0'>
  beforeAll(async () => {
    engine = await createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: PIPER } } })
  })
  afterAll(() => engine.close())
  const say = (transcript: string) => engine.synthesize({ model_id: 'svc_pro_v1.0', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: RAW })

  it('<prosody rate="50%"> is the span at half speed', async () => {
    const slow = await say(`<speak><prosody rate="50%">${SENTENCE}</prosody></speak>`)
    const normal = await say(SENTENCE)
    expect(slow.length / normal.length).toBeGreaterThan(1.8)
    expect(slow.length / normal.length).toBeLessThan(2.2)
  })

  it('a document without renderings is the plain transcript, byte for byte', async () => {
    expect((await say(`<speak>${SENTENCE}</speak>`)).equals(await say(SENTENCE))).toBe(true)
  })
})
