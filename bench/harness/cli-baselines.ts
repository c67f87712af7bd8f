/**
 * The reference command-line programs, timed from the spawn to the process's exit, writing their
 * WAV to a file the way users run them (`-w file`, `-o file`), and the WAV's length. (A pipe
 * flattered espeak-ng: it wrote 1000 words through a FIFO in 357-406 ms against 250-290 ms to a
 * file.) Peak RSS comes from GNU time's %M in separate runs, so the wrapper never sits inside the
 * timed runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
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

/** Runs the program writing its WAV to a file, as users run it; the file is read once it exits. */
export function timeCli(cli: CliCommand, text: string): Promise<SpeechTiming> {
  return withTempDir(
    (dir) =>
      new Promise<SpeechTiming>((resolve, reject) => {
        const file = path.join(dir, 'audio.wav')
        const started = performance.now()
        spawn(cli.command, cli.args(text, file), { stdio: 'ignore' })
          .on('error', reject)
          .on('exit', (code) => {
            const totalMs = performance.now() - started
            if (code !== 0) return reject(new Error(`${cli.command} exited with ${code}`))
            try {
              // A file cannot be heard before the program is done with it: first audio is the whole run.
              resolve({ firstAudioMs: totalMs, totalMs, audioSeconds: wavDurationSeconds(readFileSync(file)) })
            } catch (error) {
              reject(error)
            }
          })
      }),
  )
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
