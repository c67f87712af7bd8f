/**
 * The reference command-line programs, timed from the spawn: first byte of the WAV (first audio),
 * process exit (whole synthesis), and the WAV's length. Each program writes into a named pipe the
 * harness reads: a real pipe, like a shell's `|`. (Node's own stdio pipes are sockets, which flite
 * cannot open as /dev/stdout.) Peak RSS comes from GNU time's %M in separate runs, so the wrapper
 * never sits inside the timed runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, constants, createReadStream, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { SpeechTiming } from './protocol.js'
import { median } from './stats.js'
import type { CliCommand } from './subjects.js'
import { wavDurationSeconds } from './wav-duration.js'

const GNU_TIME = '/usr/bin/time'

function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-'))
  return use(dir).finally(() => rmSync(dir, { recursive: true, force: true }))
}

/** Lets a reader still blocked opening the pipe (the program died before opening it) see end-of-file. */
function releaseReader(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
  } catch {
    // No reader waiting: nothing to release.
  }
}

export function timeCli(cli: CliCommand, text: string): Promise<SpeechTiming> {
  return withTempDir((dir) => {
    const fifo = path.join(dir, 'audio.wav')
    const made = spawnSync('mkfifo', [fifo])
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`)
    return new Promise<SpeechTiming>((resolve, reject) => {
      const started = performance.now()
      let firstAudioMs: number | undefined
      let totalMs: number | undefined
      let drained = false
      const parts: Buffer[] = []
      const finish = () => {
        if (totalMs === undefined || !drained) return
        try {
          resolve({ firstAudioMs: firstAudioMs ?? totalMs, totalMs, audioSeconds: wavDurationSeconds(Buffer.concat(parts)) })
        } catch (error) {
          reject(error)
        }
      }
      createReadStream(fifo)
        .on('data', (part) => {
          firstAudioMs ??= performance.now() - started
          parts.push(part as Buffer)
        })
        .on('end', () => {
          drained = true
          finish()
        })
        .on('error', reject)
      spawn(cli.command, cli.args(text, fifo), { stdio: 'ignore' })
        .on('error', (error) => {
          releaseReader(fifo)
          reject(error)
        })
        .on('exit', (code) => {
          totalMs = performance.now() - started
          if (code !== 0) {
            releaseReader(fifo)
            reject(new Error(`${cli.command} exited with ${code}`))
          }
          finish()
        })
    })
  })
}

/** Peak RSS in MiB of one run, or undefined where GNU time is not installed. */
export async function cliPeakRssMib(cli: CliCommand, text: string): Promise<number | undefined> {
  return withTempDir(async (dir) => {
    const report = path.join(dir, 'rss')
    const run = spawnSync(GNU_TIME, ['-f', '%M', '-o', report, cli.command, ...cli.args(text, '/dev/null')], { stdio: 'ignore' })
    if (run.error || run.status !== 0) return undefined
    return Number(readFileSync(report, 'utf8').trim()) / 1024  // %M is in KiB
  })
}

/** What spawning a do-nothing program costs from Node: part of every CLI figure, none of the engine's. */
export async function spawnOverheadMs(): Promise<number> {
  const walls: number[] = []
  for (let i = 0; i < 20; i++) {
    const started = performance.now()
    await new Promise<void>((resolve, reject) => {
      spawn('true', [], { stdio: 'ignore' }).on('error', reject).on('exit', () => resolve())
    })
    walls.push(performance.now() - started)
  }
  return median(walls)
}
