import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixFlacLength } from '../../lib/audio/flac-file.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'

const tmp = mkdtempSync(path.join(tmpdir(), 'svc-tts-flac-file-'))

describe('FLAC files with their length', async () => {
  const engine = await testEngine()

  it('fixFlacLength writes the total samples a streamed FLAC could not know', async () => {
    const chunks = await collect(engine.speak({
      model_id: 'svc_pro_v1.0',
      transcript: 'The birch canoe slid. Glue the sheet to the dark blue background.',
      voice: { mode: 'id', id: voiceId('Kal') },
      output_format: { container: 'flac', encoding: 'pcm_s16le', sample_rate: 16000 },
    }))
    const samples = chunks.reduce((n, c) => n + c.samples, 0)
    const file = path.join(tmp, 'streamed.flac')
    writeFileSync(file, Buffer.concat(chunks.map((c) => c.audio)))
    expect(Number(execFileSync('soxi', ['-s', file]).toString().trim())).toBe(0)  // unknown while streamed
    await fixFlacLength(file, samples)
    expect(Number(execFileSync('soxi', ['-s', file]).toString().trim())).toBe(samples)
    const decoded = execFileSync('sox', [file, '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-'])
    expect(decoded.length / 2).toBe(samples)
    expect(samples / 16000).toBeGreaterThan(2)
  })

  it('refuses a file that is not FLAC with INVALID_REQUEST and leaves it alone', async () => {
    const file = path.join(tmp, 'not.flac')
    writeFileSync(file, 'RIFF....WAVEfmt and more bytes than a STREAMINFO')
    await expect(fixFlacLength(file, 1000)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(readFileSync(file, 'utf8')).toBe('RIFF....WAVEfmt and more bytes than a STREAMINFO')
  })
})
