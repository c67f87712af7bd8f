import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixWavSizes, writeWavFile, type Encoding, type SynthesisRequest } from '../../lib/index.js'
import { decodeWav } from '../helpers/audio.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'

const tmp = mkdtempSync(path.join(tmpdir(), 'svc-tts-wav-file-'))
const request = (encoding: Encoding): SynthesisRequest => ({
  model_id: 'svc_pro_v1.0',
  transcript: 'The birch canoe slid. Glue the sheet to the dark blue background.',
  voice: { mode: 'id', id: voiceId('Kal') },
  output_format: { container: 'wav', encoding, sample_rate: 16000 },
})
const soxi = (flag: string, file: string) => Number(execFileSync('soxi', [flag, file]).toString().trim())

describe('WAV files with their real sizes', async () => {
  const engine = await testEngine()

  for (const [encoding, width] of [['pcm_s16le', 2], ['pcm_f32le', 4], ['pcm_mulaw', 1]] as const) {
    it(`writeWavFile gives a ${encoding} stream its RIFF, data${encoding === 'pcm_s16le' ? '' : ' and fact'} sizes`, async () => {
      const file = path.join(tmp, `${encoding}.wav`)
      const sizes = await writeWavFile(file, engine.stream(request(encoding)))
      const bytes = readFileSync(file)
      const wav = decodeWav(bytes)
      expect(sizes).toEqual({ dataBytes: wav.data.length, dataOffset: bytes.length - wav.data.length, blockAlign: width, fixed: true })
      expect(wav.dataSize).toBe(wav.data.length)
      expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8)
      if (encoding !== 'pcm_s16le') expect(bytes.readUInt32LE(sizes.dataOffset - 12)).toBe(wav.data.length / width)  // fact's sample count
      // soxi takes the length from the header (it would print 0 or 24 hours otherwise): it equals the samples written.
      expect(soxi('-s', file)).toBe(wav.data.length / width)
      expect(soxi('-D', file)).toBeCloseTo(wav.data.length / width / 16000, 3)
      expect(wav.data.length / width / 16000).toBeGreaterThan(2)
    })
  }

  it('fixWavSizes fills in a streamed WAV already on disk, by path or by descriptor', async () => {
    const streamed = Buffer.concat(await collect(engine.stream(request('pcm_s16le'))))
    expect(streamed.readUInt32LE(40)).toBe(0xffffffff)
    const byPath = path.join(tmp, 'by-path.wav')
    writeFileSync(byPath, streamed)
    expect(await fixWavSizes(byPath)).toMatchObject({ dataBytes: streamed.length - 44, fixed: true })
    expect(readFileSync(byPath).readUInt32LE(40)).toBe(streamed.length - 44)

    const byFd = path.join(tmp, 'by-fd.wav')
    writeFileSync(byFd, streamed)
    const fd = openSync(byFd, 'r+')
    try {
      expect(await fixWavSizes(fd)).toMatchObject({ dataBytes: streamed.length - 44, fixed: true })
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(byFd).subarray(44)).toEqual(streamed.subarray(44))
    expect(soxi('-s', byFd)).toBe((streamed.length - 44) / 2)
  })

  it('leaves a file opened for appending as it was (a positioned write would land at its end)', async () => {
    const streamed = Buffer.concat(await collect(engine.stream(request('pcm_s16le'))))
    const file = path.join(tmp, 'appended.wav')
    writeFileSync(file, streamed)
    const fd = openSync(file, 'a+')
    try {
      expect(await fixWavSizes(fd)).toMatchObject({ dataBytes: streamed.length - 44, fixed: false })
    } finally {
      closeSync(fd)
    }
    expect(readFileSync(file)).toEqual(streamed)
  })

  it('refuses a file that is not a WAV with INVALID_REQUEST and leaves it alone', async () => {
    const file = path.join(tmp, 'not.wav')
    writeFileSync(file, 'ID3 this is not a RIFF file at all')
    await expect(fixWavSizes(file)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(readFileSync(file, 'utf8')).toBe('ID3 this is not a RIFF file at all')
  })
})
