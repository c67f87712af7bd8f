/**
 * MP3, Ogg Opus and FLAC (issue 11, part 4): every container x encoding x rate decodes (ffmpeg) to
 * the speech's duration; a stream cut after any chunk still decodes; streamed and one-shot audio
 * decode to the same samples; bad combinations are refused with FORMAT_NOT_RECOGNIZED.
 */
import { describe, expect, it } from 'vitest'
import { COMPRESSED_CONTAINERS, SAMPLE_RATES, TtsError, type OutputFormat, type OutputFormatRequest, type SynthesisRequest } from '../../lib/index.js'
import { mp3BitRates, OPUS_BIT_RATE_RANGE } from '../../lib/audio/format.js'
import { loadNative } from '../../lib/native.js'
import { s16 } from '../helpers/audio.js'
import { ffmpegDecode, levelDb, unitStarts } from '../helpers/decode.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'

// kal16 is flite's diphone voice: deterministic, so each request gives the same samples.
// Some formats here are refused on purpose: the cast lets them reach the run-time check.
const request = (output_format: object, transcript = 'The birch canoe slid. Glue the sheet to the dark blue background.'): SynthesisRequest => ({
  model_id: 'svc_pro_v1.0',
  transcript,
  voice: { mode: 'id', id: voiceId('Kal') },
  output_format: output_format as OutputFormatRequest,
})
const LONG = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. These days a chicken leg is a rare dish.'
const MP3_FRAME = (rate: number) => (rate >= 32000 ? 1152 : 576)
// LAME's encoder delay (576) plus the MP3 decoder's own (529): the samples a decoder puts before
// the first one fed in, when no LAME tag tells it to drop them.
const MP3_PRIMING = 576 + 529
const OPUS_RATES = [8000, 12000, 16000, 24000, 48000]

async function failure(promise: Promise<unknown>): Promise<TtsError> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(TtsError)
  return error as TtsError
}

describe('compressed audio', async () => {
  const engine = await testEngine()
  /** The speech as 16-bit PCM at `rate`: what every compressed file must decode to. */
  const pcmAt = new Map<number, Promise<Int16Array>>()
  const reference = (rate: number) => {
    if (!pcmAt.has(rate)) pcmAt.set(rate, engine.synthesize(request({ container: 'raw', sample_rate: rate })).then(s16))
    return pcmAt.get(rate)!
  }

  for (const container of COMPRESSED_CONTAINERS) {
    for (const encoding of ['pcm_s16le', 'pcm_f32le'] as const) {
      for (const rate of SAMPLE_RATES) {
        it(`${container} ${encoding} at ${rate} Hz decodes to the speech's duration`, async () => {
          const file = await engine.synthesize(request({ container, encoding, sample_rate: rate }))
          const decoded = ffmpegDecode(file, container)
          expect(decoded.errors).toBe('')
          if (container === 'flac') {
            const pcm = await reference(rate)
            expect(decoded).toMatchObject({ codec: 'flac', sampleRate: rate })
            expect(decoded.samples.length).toBe(pcm.length)
            // Lossless: 16-bit FLAC holds the s16 PCM exactly; 24-bit rounds back to it within a step.
            const worst = pcm.reduce((m, x, i) => Math.max(m, Math.abs(x - decoded.samples[i]!)), 0)
            expect(worst).toBeLessThanOrEqual(encoding === 'pcm_s16le' ? 0 : 1)
          } else if (container === 'ogg') {
            // Opus decodes at 48 kHz; rates Opus cannot take are synthesised at 48 kHz.
            const pcm = await reference(OPUS_RATES.includes(rate) ? rate : 48000)
            const encodedRate = OPUS_RATES.includes(rate) ? rate : 48000
            expect(decoded).toMatchObject({ codec: 'opus', sampleRate: 48000 })
            // Pre-skip and end trimming from the granule positions: exactly the samples fed in.
            expect(decoded.samples.length).toBe((pcm.length * 48000) / encodedRate)
            expect(Math.abs(levelDb(decoded.samples) - levelDb(pcm))).toBeLessThan(2)
          } else {
            const pcm = await reference(rate)
            expect(decoded).toMatchObject({ codec: 'mp3', sampleRate: rate })
            const frame = MP3_FRAME(rate)
            expect(decoded.samples.length % frame).toBe(0)
            // Priming before, and padding to a whole frame plus LAME's flush frame after.
            expect(decoded.samples.length).toBeGreaterThanOrEqual(pcm.length + MP3_PRIMING)
            expect(decoded.samples.length).toBeLessThan(pcm.length + MP3_PRIMING + 2 * frame)
            expect(Math.abs(levelDb(decoded.samples) - levelDb(pcm))).toBeLessThan(2)
          }
        })
      }
    }
  }

  for (const container of COMPRESSED_CONTAINERS) {
    it(`a streamed ${container} cut after any chunk decodes, and the whole stream decodes as the one-shot file`, async () => {
      const format = { container, sample_rate: 24000 }
      const chunks = (await collect(engine.stream(request(format, LONG)))).filter((c) => c.length > 0)
      expect(chunks.length).toBeGreaterThan(3)
      // Every chunk ends where an MP3 frame or Ogg page ends; FLAC chunks after the headers start with a frame's sync code.
      const ends = chunks.map((_, i) => Buffer.concat(chunks.slice(0, i + 1)).length)
      if (container !== 'flac') {
        const starts = unitStarts(Buffer.concat(chunks), container)
        for (const end of ends) expect(starts.has(end), `chunk end at byte ${end}`).toBe(true)
      } else {
        for (const chunk of chunks.slice(1)) expect([chunk[0], chunk[1]! & 0xfe]).toEqual([0xff, 0xf8])
      }
      let previous = -1
      for (let cut = 1; cut <= chunks.length; cut++) {
        const decoded = ffmpegDecode(Buffer.concat(chunks.slice(0, cut)), container)
        expect(decoded.errors).toBe('')
        expect(decoded.samples.length).toBeGreaterThanOrEqual(previous)
        previous = decoded.samples.length
      }
      const oneShot = ffmpegDecode(await engine.synthesize(request(format, LONG)), container)
      const streamed = ffmpegDecode(Buffer.concat(chunks), container)
      expect(streamed.samples.length).toBe(oneShot.samples.length)
      expect(Buffer.from(streamed.samples.buffer).equals(Buffer.from(oneShot.samples.buffer))).toBe(true)
    })
  }

  it('the headers come in the first chunk of a stream', async () => {
    const magic = { mp3: [0xff], ogg: [...Buffer.from('OggS')], flac: [...Buffer.from('fLaC')] }
    for (const container of COMPRESSED_CONTAINERS) {
      const [first] = await collect(engine.stream(request({ container, sample_rate: 16000 }, 'Hello.')))
      expect([...first!.subarray(0, magic[container].length)]).toEqual(magic[container])
      if (container === 'ogg') expect(first!.includes('OpusHead') && first!.includes('OpusTags')).toBe(true)
    }
  })

  it('a one-shot FLAC states its length; a streamed one says it is unknown', async () => {
    const totalSamples = (file: Buffer) => Number(file.readBigUInt64BE(18) & 0xfffffffffn)
    const file = await engine.synthesize(request({ container: 'flac', sample_rate: 22050 }))
    expect(totalSamples(file)).toBe((await reference(22050)).length)
    const streamed = Buffer.concat(await collect(engine.stream(request({ container: 'flac', sample_rate: 22050 }))))
    expect(totalSamples(streamed)).toBe(0)
  })

  it('Ogg Opus at a rate Opus lacks names the requested rate in its header', async () => {
    const file = await engine.synthesize(request({ container: 'ogg', sample_rate: 44100 }))
    const head = file.indexOf('OpusHead')
    expect(file.readUInt32LE(head + 12)).toBe(44100)
    expect(file.readUInt16LE(head + 10)).toBeGreaterThan(0)  // pre-skip
  })

  it('bit_rate sets the size of lossy audio', async () => {
    const size = async (format: object) => (await engine.synthesize(request(format, LONG))).length
    expect(await size({ container: 'mp3', bit_rate: 32000 })).toBeLessThan((await size({ container: 'mp3', bit_rate: 128000 })) / 3)
    expect(await size({ container: 'ogg', bit_rate: 12000 })).toBeLessThan((await size({ container: 'ogg', bit_rate: 64000 })) / 3)
  })

  it('a writable session gives compressed chunks that join into a file, with the words', async () => {
    const session = await engine.open(request({ container: 'ogg', sample_rate: 16000 }, ''))
    session.write('The birch canoe slid on the smooth planks. ')
    session.write('Glue the sheet to the dark blue background.')
    session.end()
    const chunks = await collect(session)
    const decoded = ffmpegDecode(Buffer.concat(chunks.map((c) => c.audio)), 'ogg')
    expect(decoded.errors).toBe('')
    const words = chunks.flatMap((c) => c.words)
    expect(words.map((w) => w.text).join(' ')).toContain('background')
    const lastMs = words.at(-1)!.endMs
    expect(lastMs).toBeLessThanOrEqual((decoded.samples.length / 48000) * 1000 + 1)
    expect(lastMs).toBeGreaterThan((decoded.samples.length / 48000) * 1000 - 1000)
  })

  it('with_timestamps carries a compressed file', async () => {
    const result = await engine.synthesizeWithTimestamps(request({ container: 'mp3', sample_rate: 22050 }))
    const decoded = ffmpegDecode(Buffer.from(result.audio_base64, 'base64'), 'mp3')
    expect(decoded.errors).toBe('')
    expect(decoded.samples.length).toBeGreaterThan(22050)
    expect(result.alignment.words).toEqual('The birch canoe slid. Glue the sheet to the dark blue background.'.split(' '))
  })

  const refused: [string, object, string][] = [
    ['a bit_rate on wav', { container: 'wav', bit_rate: 64000 }, 'bit_rate'],
    ['a bit_rate on raw (the default container of stream)', { bit_rate: 64000 }, 'bit_rate'],
    ['a bit_rate on flac', { container: 'flac', bit_rate: 64000 }, 'bit_rate'],
    ['an MP3 bit rate that is not a standard one', { container: 'mp3', bit_rate: 100000 }, 'bit_rate'],
    ['an MPEG-1 rate at 16 kHz', { container: 'mp3', sample_rate: 16000, bit_rate: 320000 }, 'bit_rate'],
    ['an MPEG-2 rate at 44.1 kHz', { container: 'mp3', sample_rate: 44100, bit_rate: 8000 }, 'bit_rate'],
    ['more than 64 kb/s of MP3 at 8 kHz (MPEG-2.5)', { container: 'mp3', sample_rate: 8000, bit_rate: 80000 }, 'bit_rate'],
    ['Opus below 6 kb/s', { container: 'ogg', bit_rate: 5000 }, 'bit_rate'],
    ['Opus above 510 kb/s', { container: 'ogg', bit_rate: 600000 }, 'bit_rate'],
    ['a fractional bit_rate', { container: 'mp3', bit_rate: 64000.5 }, 'bit_rate'],
    ['mu-law into MP3', { container: 'mp3', encoding: 'pcm_mulaw' }, 'encoding'],
    ['A-law into FLAC', { container: 'flac', encoding: 'pcm_alaw' }, 'encoding'],
    ['an unknown container', { container: 'aac' }, 'container'],
  ]
  for (const [what, format, field] of refused) {
    it(`refuses ${what}: FORMAT_NOT_RECOGNIZED on ${field}`, async () => {
      for (const call of [engine.synthesize(request(format)), collect(engine.stream(request(format))), engine.open(request(format, ''))]) {
        const error = await failure(call)
        expect(error.code).toBe('FORMAT_NOT_RECOGNIZED')
        expect(error.status).toBe(400)
        const issues = (error.extra as { issues: { path: string[] }[] }).issues
        expect(issues.map((i) => i.path.join('.'))).toContain(`output_format.${field}`)
      }
    })
  }

  it('fed in tiny pieces, every encoder\'s output so far decodes after every call', async () => {
    const native = loadNative()
    const rate = 24000
    const tone = new Float32Array(rate / 2).map((_, i) => 0.3 * Math.sin((2 * Math.PI * 220 * i) / rate))
    // Ten pieces of 12 ms (less than any codec's frame), then longer ones.
    const ends = [...Array.from({ length: 10 }, (_, i) => ((i + 1) * rate * 12) / 1000), rate / 4, tone.length]
    for (const [codec, extension] of [['mp3', 'mp3'], ['opus', 'ogg'], ['flac', 'flac']] as const) {
      const encoder = new native.AudioEncoder({ codec, sampleRate: rate, bitsPerSample: 16, bitRate: 64000 })
      const parts: Buffer[] = []
      for (const [i, end] of ends.entries()) {
        parts.push(await encoder.encode(Buffer.from(tone.slice(ends[i - 1] ?? 0, end).buffer)))
        const soFar = Buffer.concat(parts)
        if (soFar.length > 0) expect(ffmpegDecode(soFar, extension).errors, `${codec} after ${end} samples`).toBe('')
      }
      parts.push(await encoder.finish())
      const whole = ffmpegDecode(Buffer.concat(parts), extension)
      expect(whole.errors).toBe('')
      expect(whole.samples.length).toBeGreaterThanOrEqual(codec === 'opus' ? tone.length * 2 : tone.length)
    }
  }, 120_000)

  it('every bit rate the schema takes, the encoders take', async () => {
    const native = loadNative()
    const tenthOfASecond = (rate: number) => Buffer.alloc((rate / 10) * 4)
    for (const rate of SAMPLE_RATES) {
      for (const bitRate of mp3BitRates(rate)) {
        const encoder = new native.AudioEncoder({ codec: 'mp3', sampleRate: rate, bitsPerSample: 16, bitRate })
        await encoder.encode(tenthOfASecond(rate))
        expect((await encoder.finish()).length, `${rate} Hz ${bitRate} bits/s`).toBeGreaterThan(0)
      }
    }
    for (const rate of OPUS_RATES) {
      for (const bitRate of [OPUS_BIT_RATE_RANGE.min, OPUS_BIT_RATE_RANGE.max]) {
        const encoder = new native.AudioEncoder({ codec: 'opus', sampleRate: rate, bitsPerSample: 24, bitRate })
        await encoder.encode(tenthOfASecond(rate))
        expect((await encoder.finish()).length, `Opus ${rate} Hz ${bitRate} bits/s`).toBeGreaterThan(0)
      }
    }
  })

  it('an MP3 encoder fed a little at a time hands out bytes that decode after every call, at every rate', async () => {
    // ffmpeg finds no stream in some MP3s of one to three frames, so a stream whose first chunk was
    // that short did not decode when cut there.
    const encoder = loadNative().AudioEncoder
    const someBitRates = (rates: readonly number[]) => [rates[0]!, rates[4]!, rates.at(-1)!]  // frames of every size class
    for (const rate of SAMPLE_RATES) for (const bitRate of someBitRates(mp3BitRates(rate))) {
      const mp3 = new encoder({ codec: 'mp3', sampleRate: rate, bitsPerSample: 16, bitRate })
      const piece = Buffer.alloc(Math.round(rate / 100) * 4)  // 10 ms of float samples
      new Float32Array(piece.buffer).forEach((_, i, samples) => { samples[i] = 0.3 * Math.sin(i / 5) })
      const out: Buffer[] = []
      let decodedCuts = 0
      // The first outputs are the ones at risk; a second of audio gives several even at 8 kHz.
      for (let call = 0; call < 100 && decodedCuts < 5; call++) {
        const bytes = await mp3.encode(piece)
        if (bytes.length === 0) continue
        out.push(bytes)
        expect(ffmpegDecode(Buffer.concat(out), 'mp3').errors, `${rate} Hz ${bitRate} bits/s, after call ${call}`).toBe('')
        decodedCuts++
      }
      expect(decodedCuts, `${rate} Hz ${bitRate} bits/s`).toBe(5)
    }
  }, 120_000)

  it('fills in the bit rate a lossy container gets by default, and none for the others', async () => {
    const { parseRequest } = await import('../../lib/schemas/index.js')
    const formatOf = (output_format: object) =>
      parseRequest({ model_id: 'svc_flash_v1.5', transcript: 'Hi.', voice: { mode: 'id', id: 'x' }, output_format }, 'synthesis').output_format!
    const formats: [object, Partial<OutputFormat>][] = [
      [{ container: 'mp3' }, { sample_rate: 44100, bit_rate: 128000 }],
      [{ container: 'mp3', sample_rate: 22050 }, { bit_rate: 64000 }],
      [{ container: 'mp3', sample_rate: 8000 }, { bit_rate: 32000 }],
      [{ container: 'ogg' }, { bit_rate: 32000 }],
    ]
    for (const [input, expected] of formats) expect(formatOf(input)).toMatchObject(expected)
    expect(formatOf({ container: 'flac' }).bit_rate).toBeUndefined()
  })
})
