/**
 * What the espeak-ng studies (bench/studies/espeak-cores.ts, espeak-scaling.ts, server.ts) run: the espeak-ng
 * program, several processes at once, and an engine process (bench/workers/espeak-host) that
 * closed-loop clients drive. ESPEAK_NG_PATH names the directory holding espeak-ng-data for the
 * program, where it is not the system's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { NativeCounters } from '../../lib/native.js'
import { HARVARD_SENTENCES } from './texts.js'
import { wavDurationSeconds } from './wav-duration.js'

/** The 20 Harvard sentences ten times over, as one text: about 470 s of audio. */
export const ESPEAK_PROGRAM_TEXT = Array.from({ length: 10 }, () => HARVARD_SENTENCES.join(' ')).join(' ')

// The host beside the study, in whatever form it runs (TypeScript under tsx, or bundled).
const HOST = fileURLToPath(new URL(`../workers/espeak-host${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url))
const GNU_TIME = '/usr/bin/time'
const ESPEAK_ARGS = process.env.ESPEAK_NG_PATH ? [`--path=${process.env.ESPEAK_NG_PATH}`] : []

/** Audio made per second of wall time; CPU time over wall time where it was counted; the engine's counters. */
export type Pass = { audioPerSecond: number; cpuPerWall?: number; counters?: NativeCounters }

export interface EspeakHost {
  /** `clients` closed loops send `requests` engine.synthesize() calls in all: one Harvard sentence each, or all 20 when `whole`. */
  pass(clients: number, whole: boolean, requests: number): Promise<Pass>
  stop(): void
}

/** The first `cpus` CPUs, as taskset names them. */
const cpuList = (cpus: number) => `0-${cpus - 1}`

/** An engine process; `binding` names another build of the addon, `cpus` pins it (from its start, so its engine sees only them). */
export async function startEspeakHost(options: { binding?: string; cpus?: number } = {}): Promise<EspeakHost> {
  const env = { ...process.env, ...(options.binding && { SVC_TTS_NATIVE_BINDING: options.binding }) }
  const node = [process.execPath, ...process.execArgv, HOST]
  // taskset runs Node in its place, so the IPC channel is inherited.
  const [command, ...args] = options.cpus ? ['taskset', '-c', cpuList(options.cpus), ...node] : node
  const child: ChildProcess = spawn(command!, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`the espeak-ng host exited with ${code}`))))
  return {
    pass: (clients, whole, requests) => new Promise<Pass>((resolve) => {
      child.once('message', (m) => resolve(m as Pass))
      child.send({ clients, whole, requests })
    }),
    stop: () => child.send('stop'),
  }
}

/**
 * `count` espeak-ng processes at once, each writing ESPEAK_PROGRAM_TEXT to a file in `dir`: their
 * audio over the wall time of all; with `cpuTime`, their CPU time (GNU time's) over it too; with
 * `cpus`, on the first `cpus` CPUs.
 */
export function espeakPrograms(dir: string, count: number, options: { cpus?: number; cpuTime?: boolean } = {}): Promise<Pass> {
  const started = performance.now()
  return Promise.all(Array.from({ length: count }, (_, i) => new Promise<{ audio: number; cpu: number }>((resolve, reject) => {
    const file = path.join(dir, `${i}.wav`)
    const times = path.join(dir, `${i}.time`)
    const program = ['espeak-ng', ...ESPEAK_ARGS, '-v', 'en-us+f3', '-w', file, ESPEAK_PROGRAM_TEXT]
    const timed = options.cpuTime ? [GNU_TIME, '-f', '%U %S', '-o', times, ...program] : program
    const [command, ...args] = options.cpus ? ['taskset', '-c', cpuList(options.cpus), ...timed] : timed
    spawn(command!, args, { stdio: 'ignore' })
      .on('error', reject)
      .on('exit', (code) => {
        if (code !== 0) return reject(new Error(`espeak-ng exited with ${code}`))
        const [user, system] = options.cpuTime ? readFileSync(times, 'utf8').trim().split(' ').map(Number) : [0, 0]
        resolve({ audio: wavDurationSeconds(readFileSync(file)), cpu: user! + system! })
      })
  }))).then((runs) => {
    const wall = (performance.now() - started) / 1000
    const sum = (key: 'audio' | 'cpu') => runs.reduce((total, run) => total + run[key], 0)
    return { audioPerSecond: sum('audio') / wall, ...(options.cpuTime && { cpuPerWall: sum('cpu') / wall }) }
  })
}
