import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ENCODINGS, SAMPLE_RATES, type Encoding, type OutputFormatRequest, type SynthesisRequest } from '../../lib/index.js'
import { decodeWav, s16 } from '../helpers/audio.js'
import { collect, joinChunks, testEngine, voiceId } from '../helpers/engine.js'

const WIDTH: Record<Encoding, number> = { pcm_s16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 }
const FORMAT_TAG: Record<Encoding, number> = { pcm_s16le: 1, pcm_f32le: 3, pcm_alaw: 6, pcm_mulaw: 7 }
// kal16 is flite's diphone voice: deterministic, 16 kHz, so sample counts are exactly predictable.
const request = (output_format: OutputFormatRequest): SynthesisRequest => ({
  model_id: 'svc_pro_v1.0',
  transcript: 'The birch canoe slid. Glue the sheet to the dark blue background. It is easy to tell.',
  voice: { mode: 'id', id: voiceId('Kal') },
  output_format,
})
const tmp = mkdtempSync(path.join(tmpdir(), 'svc-tts-formats-'))

describe('encodings x sample rates', async () => {
  const engine = await testEngine()
  const native16k = joinChunks(await collect(engine.speak(request({ sample_rate: 16000 }))))

  for (const encoding of ENCODINGS) {
    for (const sampleRate of SAMPLE_RATES) {
      it(`${encoding} at ${sampleRate} Hz has the exact byte length of its samples`, async () => {
        const chunks = joinChunks(await collect(engine.speak(request({ encoding, sample_rate: sampleRate }))))
        expect(chunks.length).toBe(native16k.length)
        chunks.forEach((chunk, i) => {
          expect(chunk.audio.length).toBe(chunk.samples * WIDTH[encoding])
          // Each chunk is one sentence, one piece resampled from 16 kHz: round(n * rate / 16000) samples.
          expect(chunk.samples).toBe(Math.round((native16k[i]!.samples * sampleRate) / 16000))
        })
        const raw = Buffer.concat(await collect(engine.stream(request({ encoding, sample_rate: sampleRate }))))
        expect(raw.length).toBe(chunks.reduce((n, c) => n + c.samples, 0) * WIDTH[encoding])
      })
    }
  }

  for (const encoding of ENCODINGS) {
    it(`a ${encoding} WAV has a valid header that sox reads`, async () => {
      const wav = await engine.synthesize(request({ encoding, sample_rate: 22050 }))
      const decoded = decodeWav(wav)
      expect(decoded).toMatchObject({ formatTag: FORMAT_TAG[encoding], channels: 1, sampleRate: 22050, bitsPerSample: WIDTH[encoding] * 8 })
      expect(decoded.dataSize).toBe(decoded.data.length)
      expect(wav.length - decoded.data.length).toBe(encoding === 'pcm_s16le' ? 44 : 58)
      const file = path.join(tmp, `${encoding}.wav`)
      writeFileSync(file, wav)
      const samples = Number(execFileSync('soxi', ['-s', file]).toString().trim())
      expect(samples).toBe(decoded.data.length / WIDTH[encoding])
      expect(Number(execFileSync('soxi', ['-r', file]).toString().trim())).toBe(22050)
    })
  }

  it('G.711 mu-law and A-law decode (by sox) back to the s16 audio', async () => {
    const linear = s16(decodeWav(await engine.synthesize(request({ encoding: 'pcm_s16le', sample_rate: 8000 }))).data)
    for (const encoding of ['pcm_mulaw', 'pcm_alaw'] as const) {
      const file = path.join(tmp, `g711-${encoding}.wav`)
      writeFileSync(file, await engine.synthesize(request({ encoding, sample_rate: 8000 })))
      const decoded = s16(execFileSync('sox', [file, '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-']))
      expect(decoded.length).toBe(linear.length)
      let signal = 0
      let noise = 0
      for (let i = 0; i < linear.length; i++) {
        signal += linear[i]! ** 2
        noise += (linear[i]! - decoded[i]!) ** 2
      }
      expect(10 * Math.log10(signal / noise)).toBeGreaterThan(30)  // G.711 gives about 38 dB
    }
  })

  it('a streamed WAV starts with an unknown-length header and sox reads the whole stream', async () => {
    const parts = await collect(engine.stream(request({ container: 'wav', encoding: 'pcm_s16le', sample_rate: 16000 })))
    const header = parts[0]!.subarray(0, 44)
    expect(header.toString('ascii', 0, 4)).toBe('RIFF')
    expect(header.readUInt32LE(4)).toBe(0xffffffff)
    expect(header.readUInt32LE(40)).toBe(0xffffffff)
    const file = path.join(tmp, 'streamed.wav')
    const whole = Buffer.concat(parts)
    writeFileSync(file, whole)
    const pcm = execFileSync('sox', ['--ignore-length', file, '-t', 'raw', '-'])
    expect(pcm.length).toBe(whole.length - 44)
  })
})
