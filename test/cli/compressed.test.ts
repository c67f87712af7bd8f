import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeWav, s16 } from '../helpers/audio.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], { cwd: root, encoding: 'buffer', maxBuffer: 1 << 26 })
const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'

/** What ffprobe says of a file's first audio stream. */
function probe(file: string): { codec: string; sampleRate: number; duration: number; bitRate: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,duration,bit_rate', '-of', 'json', file]).toString()
  const stream = (JSON.parse(out) as { streams: Record<string, string>[] }).streams[0]!
  return { codec: stream.codec_name!, sampleRate: Number(stream.sample_rate), duration: Number(stream.duration), bitRate: Number(stream.bit_rate) }
}

/** The samples ffmpeg decodes from a file, as mono s16 at the file's own rate. */
const decode = (file: string) => s16(execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-'], { maxBuffer: 1 << 26 }))

describe('svc-tts say into compressed files', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-cli-compressed-'))
  const reference = path.join(dir, 'reference.wav')
  await cli('say', TEXT, '--out', reference, '--sample-rate', '24000', '--quiet')
  const referenceSamples = s16(decodeWav(readFileSync(reference)).data)
  const seconds = referenceSamples.length / 24000

  it('takes the container from the extension: .mp3, .ogg, .opus, .flac', async () => {
    for (const [name, codec] of [['a.mp3', 'mp3'], ['a.ogg', 'opus'], ['a.opus', 'opus'], ['a.flac', 'flac']] as const) {
      const file = path.join(dir, name)
      await cli('say', TEXT, '--out', file, '--sample-rate', '24000', '--quiet')
      const info = probe(file)
      expect(info.codec, name).toBe(codec)
      // Encoder delay and padding add at most a few frames.
      expect(decode(file).length / info.sampleRate, name).toBeGreaterThan(seconds - 0.01)
      expect(decode(file).length / info.sampleRate, name).toBeLessThan(seconds + 0.1)
    }
  })

  it('a FLAC file holds exactly the samples of the WAV, and says how many', async () => {
    const file = path.join(dir, 'exact.flac')
    await cli('say', TEXT, '--out', file, '--sample-rate', '24000', '--quiet')
    expect(decode(file)).toEqual(referenceSamples)
    expect(Number(execFileSync('soxi', ['-s', file]).toString().trim())).toBe(referenceSamples.length)
  })

  it('--format mp3 on stdout gives MP3 bytes, and --bit-rate sets the rate', async () => {
    const { stdout } = await cli('say', TEXT, '--out', '-', '--format', 'mp3', '--bit-rate', '64k', '--sample-rate', '24000', '--quiet')
    const file = path.join(dir, 'stdout.mp3')
    execFileSync('sh', ['-c', `cat > '${file}'`], { input: stdout })
    expect(probe(file)).toMatchObject({ codec: 'mp3', sampleRate: 24000, bitRate: 64000 })
  })

  it('the summary line gives the speech\'s duration for a compressed file', async () => {
    const { stderr } = await cli('say', TEXT, '--out', path.join(dir, 'summary.ogg'))
    const audio = Number(/^(\d+\.\d\d) s of audio/.exec(stderr.toString())![1])
    expect(audio).toBeCloseTo(seconds, 1)
  })
})
