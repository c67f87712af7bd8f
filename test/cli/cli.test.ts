import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { PREDEFINED_VOICES } from '../../lib/index.js'
import { decodeWav, rms, s16 } from '../helpers/audio.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], { cwd: root })
const tmp = () => mkdtempSync(path.join(tmpdir(), 'svc-tts-cli-'))

interface Ran {
  code: number | null
  stdout: Buffer
  stderr: string
}

/** The CLI with a given stdin (text, or a file descriptor), stdout (captured, or a file descriptor) and environment. */
function spawnCli(args: string[], options: { input?: string; stdout?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], {
      cwd: root,
      stdio: ['pipe', options.stdout ?? 'pipe', 'pipe'],
      env: options.env ?? process.env,
    })
    const out: Buffer[] = []
    let stderr = ''
    child.stdout?.on('data', (bytes: Buffer) => out.push(bytes))
    child.stderr!.on('data', (bytes: Buffer) => { stderr += bytes.toString() })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }))
    child.stdin!.end(options.input)
  })
}

const soxi = (flag: string, file: string) => Number(execFileSync('soxi', [flag, file]).toString().trim())
const LONG_TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. '.repeat(4)
const SUMMARY = /^(\d+\.\d\d) s of audio in (\d+\.\d\d) s \(real-time factor (\d+\.\d+)\): (.+)$/

describe('svc-tts command line', () => {
  it('says a sentence into a WAV file', async () => {
    const out = path.join(tmp(), 'hello.wav')
    await cli('say', 'Hello there', '--out', out, '--sample-rate', '24000')
    const file = readFileSync(out)
    const wav = decodeWav(file)
    expect(wav.sampleRate).toBe(24000)
    expect(wav.dataSize).toBe(file.length - 44)  // sizes filled in once the stream ended
    const samples = s16(wav.data)
    expect(samples.length / 24000).toBeGreaterThan(0.5)
    expect(rms(samples)).toBeGreaterThan(300)
  })

  it('speaks another language with a named voice and model', async () => {
    const out = path.join(tmp(), 'bonjour.raw')
    await cli('say', 'Bonjour tout le monde', '--out', out, '--model', 'svc_flash_v1.5', '--voice', 'Camille', '--encoding', 'pcm_f32le')
    const bytes = readFileSync(out)
    expect(bytes.length % 4).toBe(0)
    expect(bytes.length / 4 / 44100).toBeGreaterThan(0.5)
  })

  it('lists the voices', async () => {
    const { stdout } = await cli('voices')
    expect(stdout.trim().split('\n').length).toBe(PREDEFINED_VOICES.length)
    expect(stdout).toContain('Sarah')
  })

  it('reports a bad request with its code and a non-zero exit', async () => {
    const error = await cli('say', 'Hi', '--out', '-', '--encoding', 'mp3').then(() => undefined, (e: { code: number; stderr: string }) => e)
    expect(error?.code).toBe(1)
    expect(error?.stderr).toContain('FORMAT_NOT_RECOGNIZED')
  })

  it('prints the version of the package.json beside the module, from the source and from the build', async () => {
    const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
    expect((await cli('--version')).stdout).toBe(`svc-tts ${version}\n`)
    // The package's bin (its launcher, and the bundle npm ci builds into dist/bin/), run from elsewhere, as an installed package's is.
    const { bin } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    const built = await run(path.join(root, bin['svc-tts']!), ['--version'], { cwd: tmpdir() })
    expect(built.stdout).toBe(`svc-tts ${version}\n`)
  })

  it('--help lists every say option', async () => {
    const { stdout } = await cli('--help')
    for (const option of ['--out', '--format', '--play', '--text-file', '--bit-rate', '--speed', '--quiet', '--models-dir', '--version']) expect(stdout).toContain(option)
  })

  it('--speed 2 speaks faster; a speed out of range is INVALID_REQUEST', async () => {
    const dir = tmp()
    const text = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.'
    await cli('say', text, '--out', path.join(dir, 'normal.raw'))
    await cli('say', text, '--out', path.join(dir, 'fast.raw'), '--speed', '2')
    const ratio = readFileSync(path.join(dir, 'fast.raw')).length / readFileSync(path.join(dir, 'normal.raw')).length
    expect(ratio).toBeGreaterThan(0.35)
    expect(ratio).toBeLessThan(0.7)
    const ran = await spawnCli(['say', text, '--out', path.join(dir, 'x.wav'), '--speed', '3'])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(/^error INVALID_REQUEST: .*speed/)
  })

  it('lists the builtin models and says how to add neural packs', async () => {
    const lines = (await cli('models')).stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^ONNX Runtime \d+\.\d+/)
    expect(lines).toContain('svc_pro_v1.0  en  flite')
    expect(lines).toContain('svc_flash_v1.5  en,es,fr,de,it,pt  espeak')
    expect(lines).toContain(`voices: ${PREDEFINED_VOICES.length} predefined on the builtin models (svc-tts voices lists them)`)
    expect(lines.at(-1)).toMatch(/^neural packs: none; --models-dir DIR .*svc-tts\.models\.json/)
  })

  describe('text from stdin and from a file', () => {
    const sentence = 'Glue the sheet to the dark blue background. It is easy to tell the depth of a well.'

    it('speaks stdin (with -, or with no text when stdin is a pipe) exactly as the same text given as an argument', async () => {
      const dir = tmp()
      await cli('say', sentence, '--out', path.join(dir, 'argument.raw'))
      const fromArgument = readFileSync(path.join(dir, 'argument.raw'))
      expect(fromArgument.length / 2 / 44100).toBeGreaterThan(3)
      for (const args of [['say', '-'], ['say']]) {
        const out = path.join(dir, `${args.length}.raw`)
        const ran = await spawnCli([...args, '--out', out], { input: sentence })
        expect(ran.code).toBe(0)
        expect(readFileSync(out).equals(fromArgument)).toBe(true)
      }
    })

    it('speaks a --text-file exactly as the same text given as an argument', async () => {
      const dir = tmp()
      writeFileSync(path.join(dir, 'speech.txt'), `${sentence}\n`)
      await cli('say', sentence, '--out', path.join(dir, 'argument.raw'))
      await cli('say', '--text-file', path.join(dir, 'speech.txt'), '--out', path.join(dir, 'file.raw'))
      expect(readFileSync(path.join(dir, 'file.raw')).equals(readFileSync(path.join(dir, 'argument.raw')))).toBe(true)
    })

    it('fails with IO_FAILED (exit 3) for a missing --text-file, and INVALID_REQUEST for an empty stdin, leaving no file', async () => {
      const dir = tmp()
      const missing = await spawnCli(['say', '--text-file', path.join(dir, 'nope.txt'), '--out', path.join(dir, 'a.wav')])
      expect(missing.code).toBe(3)
      expect(missing.stderr).toMatch(/^error IO_FAILED: cannot read --text-file .*nope\.txt: ENOENT\n$/)
      const empty = await spawnCli(['say', '-', '--out', path.join(dir, 'b.wav')], { input: '  \n' })
      expect(empty.code).toBe(1)
      expect(empty.stderr).toBe('error INVALID_REQUEST: stdin had no text to speak\n')
      expect(existsSync(path.join(dir, 'a.wav')) || existsSync(path.join(dir, 'b.wav'))).toBe(false)
    })
  })

  describe('formats', () => {
    it('writes a WAV to a stdout pipe with the streamed header, which sox reads to the end', async () => {
      const ran = await spawnCli(['say', 'Hello there, this goes to a pipe.', '--out', '-', '--quiet'])
      expect(ran.code).toBe(0)
      const wav = decodeWav(ran.stdout)
      expect(wav.dataSize).toBe(0xffffffff)  // a pipe cannot be rewound
      const file = path.join(tmp(), 'piped.wav')
      writeFileSync(file, ran.stdout)
      const decoded = execFileSync('sox', ['--ignore-length', file, '-t', 'raw', '-'])
      expect(decoded.length).toBe(wav.data.length)
      expect(wav.data.length / 2 / 44100).toBeGreaterThan(1)  // at least the second of audio waited for
    })

    it('writes a WAV with its real sizes to a stdout redirected to a file (> x.wav), which soxi reads', async () => {
      const file = path.join(tmp(), 'redirected.wav')
      const fd = openSync(file, 'w')
      let ran: Ran
      try {
        ran = await spawnCli(['say', 'Hello there, this goes to a file.', '--out', '-'], { stdout: fd })
      } finally {
        closeSync(fd)
      }
      expect(ran.code).toBe(0)
      const bytes = readFileSync(file)
      const wav = decodeWav(bytes)
      expect(wav.dataSize).toBe(bytes.length - 44)
      expect(soxi('-s', file)).toBe(wav.data.length / 2)
      expect(soxi('-D', file)).toBeCloseTo(wav.data.length / 2 / 44100, 3)
      expect(ran.stderr).toMatch(/: stdout \d+\.\d kB\n$/)
    })

    it('gives a WAV file the sizes of the samples it holds, for every encoding (soxi agrees)', async () => {
      const dir = tmp()
      for (const [encoding, width] of [['pcm_s16le', 2], ['pcm_f32le', 4], ['pcm_alaw', 1]] as const) {
        const file = path.join(dir, `${encoding}.wav`)
        await cli('say', 'The birch canoe slid on the smooth planks.', '--out', file, '--encoding', encoding, '--sample-rate', '16000')
        const wav = decodeWav(readFileSync(file))
        expect(wav.dataSize).toBe(wav.data.length)
        expect(soxi('-s', file)).toBe(wav.data.length / width)
        expect(soxi('-D', file)).toBeCloseTo(wav.data.length / width / 16000, 3)
      }
    })

    it('--format raw on stdout gives the WAV\'s samples without a header', async () => {
      const text = 'Raw samples on stdout.'
      const raw = await spawnCli(['say', text, '--out', '-', '--format', 'raw', '--quiet'])
      const wav = await spawnCli(['say', text, '--out', '-', '--quiet'])
      expect(raw.stdout.length).toBeGreaterThan(44100)
      expect(raw.stdout.equals(decodeWav(wav.stdout).data)).toBe(true)
    })

    it('--format overrides the extension', async () => {
      const file = path.join(tmp(), 'speech.wav')
      await cli('say', 'Raw after all.', '--out', file, '--format', 'raw')
      expect(readFileSync(file).toString('ascii', 0, 4)).not.toBe('RIFF')
      expect(readFileSync(file).length % 2).toBe(0)
    })

    // Nine CLI processes at once: a loaded machine needs more than the default 30 s.
    it('refuses what it cannot tell or do with INVALID_ARGUMENT and exit 2', { timeout: 90_000 }, async () => {
      const dir = tmp()
      const cases: [string[], RegExp][] = [
        [['say', 'Hi', '--out', path.join(dir, 'x.foo')], /cannot tell the format of .*x\.foo.* from its extension/],
        [['say', 'Hi', '--out', '-', '--format', 'aiff'], /--format must be one of raw, wav, mp3, ogg, flac/],
        [['say', 'Hi', '--out', path.join(dir, 'x.wav'), '--bit-rate', '128k'], /--bit-rate is for mp3 and ogg output, not wav/],
        [['say', 'Hi'], /say needs --out FILE \(- for stdout\) or --play/],
        [['say', 'Hi', '--out', '-', '--loud'], /Unknown option '--loud'/],
        [['speak', 'Hi'], /unknown command 'speak'/],
        [[], /no command given\nusage:/],
        [['say', 'Hi', '--play', '--out', path.join(dir, 'x.mp3')], /--play takes PCM/],
        [['say', '--out', '-', '--text-file', path.join(dir, 't.txt'), 'Hi'], /either as arguments or with --text-file, not both/],
      ]
      const runs = await Promise.all(cases.map(([args]) => spawnCli(args)))
      cases.forEach(([args, message], i) => {
        const ran = runs[i]!
        expect(ran.code, args.join(' ')).toBe(2)
        expect(ran.stderr).toMatch(/^error INVALID_ARGUMENT: /)
        expect(ran.stderr).toMatch(message)
        expect(ran.stdout.length).toBe(0)
      })
    })

    it('exits 1 with the engine\'s code when the engine refuses the request', async () => {
      const ran = await spawnCli(['say', 'Hi', '--out', '-', '--model', 'svc_nope'])
      expect(ran.code).toBe(1)
      expect(ran.stderr).toMatch(/^error MODEL_NOT_FOUND: model_id 'svc_nope' is not one of/)
    })
  })

  it('on Ctrl-C stops, keeps the audio so far as a WAV with its real sizes, and exits 130', async () => {
    const file = path.join(tmp(), 'interrupted.wav')
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'say', '-', '--out', file], { cwd: root, stdio: ['pipe', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (bytes: Buffer) => { stderr += bytes.toString() })
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
    // Stdin stays open: the first sentences are spoken, then the CLI waits for more text.
    child.stdin.write('The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. ')
    const deadline = Date.now() + 30_000
    while (!(existsSync(file) && readFileSync(file).length > 44 + 2 * 44100) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    child.kill('SIGINT')
    expect(await closed).toBe(130)
    expect(stderr).toBe('error ABORTED: interrupted\n')
    const bytes = readFileSync(file)
    const wav = decodeWav(bytes)
    expect(wav.dataSize).toBe(bytes.length - 44)
    expect(soxi('-s', file)).toBe(wav.data.length / 2)
    expect(wav.data.length / 2 / 44100).toBeGreaterThan(1)  // at least the second of audio waited for
  })

  describe('progress and summary', () => {
    it('ends with one summary line on stderr: duration, time, real-time factor, output and size', async () => {
      const file = path.join(tmp(), 'summary.wav')
      const ran = await spawnCli(['say', LONG_TEXT, '--out', file, '--sample-rate', '16000'])
      expect(ran.code).toBe(0)
      const match = SUMMARY.exec(ran.stderr.trimEnd())
      expect(ran.stderr.split('\n').length).toBe(2)  // one line, no bar without a terminal
      expect(ran.stderr).not.toContain('\r')
      const [, audio, wall, factor, output] = match!
      expect(Number(audio)).toBeCloseTo(soxi('-D', file), 2)
      expect(Number(factor)).toBeCloseTo(Number(wall) / Number(audio), 2)
      expect(output).toBe(`${file} ${(readFileSync(file).length / 1000).toFixed(1)} kB`)
    })

    it('--quiet prints nothing on success', async () => {
      const ran = await spawnCli(['say', 'Hello there.', '--out', path.join(tmp(), 'quiet.wav'), '--quiet'])
      expect(ran.code).toBe(0)
      expect(ran.stderr).toBe('')
    })

    it('draws a progress bar that only moves forward when stderr is a terminal (script gives it one)', async () => {
      const file = path.join(tmp(), 'tty.wav')
      const command = [process.execPath, '--import', 'tsx', 'lib/cli/bin.ts', 'say', `'${LONG_TEXT}'`, '--out', file].join(' ')
      const { stdout } = await run('script', ['-qec', command, '/dev/null'], { cwd: root })
      const frames = stdout.split('\r').map((frame) => frame.replace(/\x1b\[K/g, ''))
      const bars = frames.filter((frame) => /^\[[=> ]+\] +\d+%  \d+\.\d s of audio/.test(frame))
      expect(bars.length).toBeGreaterThan(0)
      const percents = bars.map((bar) => Number(/(\d+)%/.exec(bar)![1]))
      expect(percents).toEqual([...percents].sort((a, b) => a - b))  // it only moves forward
      expect(frames.some((frame) => SUMMARY.test(frame.trim()))).toBe(true)  // the bar is cleared, then the summary
    })

    it('draws no bar for a short text, even on a terminal', async () => {
      const command = [process.execPath, '--import', 'tsx', 'lib/cli/bin.ts', 'say', "'Hello there.'", '--out', path.join(tmp(), 'short.wav')].join(' ')
      const { stdout } = await run('script', ['-qec', command, '/dev/null'], { cwd: root })
      expect(stdout.trim()).toMatch(SUMMARY)
      expect(stdout).not.toContain('%')
    })

    it('refuses to print audio on a terminal', async () => {
      const command = [process.execPath, '--import', 'tsx', 'lib/cli/bin.ts', 'say', 'Hi', '--out', '-'].join(' ')
      const error = await run('script', ['-qec', command, '/dev/null'], { cwd: root }).then(() => undefined, (e: { code: number; stdout: string }) => e)
      expect(error?.code).toBe(2)
      expect(error?.stdout).toMatch(/^error INVALID_ARGUMENT: --out - would print audio on the terminal/)
    })
  })

  describe('--play', () => {
    /** A directory with a fake `aplay` that saves what it is given and its arguments. */
    function fakePlayer(): { dir: string; played: string; args: string } {
      const dir = tmp()
      const played = path.join(dir, 'played.wav')
      const args = path.join(dir, 'args.txt')
      writeFileSync(path.join(dir, 'aplay'), `#!/bin/sh\necho "$@" > '${args}'\n/bin/cat > '${played}'\n`)
      chmodSync(path.join(dir, 'aplay'), 0o755)
      return { dir, played, args }
    }

    it('pipes the streamed audio into the player found on PATH', async () => {
      const player = fakePlayer()
      const text = 'Hello there, this is played.'
      const ran = await spawnCli(['say', text, '--play'], { env: { ...process.env, PATH: `${player.dir}:/usr/bin:/bin` } })
      expect(ran.code).toBe(0)
      expect(ran.stderr).toMatch(/: played with aplay\n$/)
      expect(readFileSync(player.args, 'utf8')).toBe('-q\n')
      const played = decodeWav(readFileSync(player.played))
      const reference = decodeWav((await spawnCli(['say', text, '--out', '-', '--quiet'])).stdout)
      expect(played.data.equals(reference.data)).toBe(true)
      expect(played.data.length / 2 / 44100).toBeGreaterThan(1)
    })

    it('plays and writes a file at once', async () => {
      const player = fakePlayer()
      const file = path.join(tmp(), 'both.wav')
      const ran = await spawnCli(['say', 'Both at once.', '--play', '--out', file], { env: { ...process.env, PATH: player.dir } })
      expect(ran.code).toBe(0)
      expect(decodeWav(readFileSync(player.played)).data.equals(decodeWav(readFileSync(file)).data)).toBe(true)
    })

    it('fails with PLAYER_NOT_FOUND (exit 3) when no player is on PATH', async () => {
      const ran = await spawnCli(['say', 'Hi', '--play'], { env: { ...process.env, PATH: tmp() } })
      expect(ran.code).toBe(3)
      expect(ran.stderr).toMatch(/^error PLAYER_NOT_FOUND: --play needs an audio player on PATH: one of aplay, paplay, ffplay, play/)
    })
  })
})
