/**
 * What the throughput studies (bench/studies/cores.ts, espeak-scaling.ts, server.ts) run: a
 * synthesizer's command-line program, several processes at once, and an engine process
 * (bench/workers/engine-host) that closed-loop clients drive. ESPEAK_NG_PATH names the directory
 * holding espeak-ng-data for the espeak-ng program, where it is not the system's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { NativeCounters } from '../../lib/native.js'
import { subjectById, type CliCommand, type Subject } from './subjects.js'
import { HARVARD_SENTENCES } from './texts.js'
import { cpuList, workerCommand } from './worker-command.js'
import { wavDurationSeconds } from './wav-duration.js'

/** The 20 Harvard sentences `times` over, as one text: about 47 s of audio each time. */
export const harvardTimes = (times: number) => Array.from({ length: times }, () => HARVARD_SENTENCES.join(' ')).join(' ')

/** The 20 Harvard sentences ten times over, as one text: about 470 s of audio. */
const ESPEAK_PROGRAM_TEXT = harvardTimes(10)

const GNU_TIME = '/usr/bin/time'
const ESPEAK_ARGS = process.env.ESPEAK_NG_PATH ? [`--path=${process.env.ESPEAK_NG_PATH}`] : []

/** The subject's program, as this machine runs it (espeak-ng reading ESPEAK_NG_PATH's data where it is set). */
export function programOf(subject: Subject): CliCommand {
  const cli = subject.cli!
  return cli.command === 'espeak-ng' ? { command: cli.command, args: (text, wavPath) => [...ESPEAK_ARGS, ...cli.args(text, wavPath)] } : cli
}

/** Audio made per second of wall time; CPU time over wall time where it was counted; an engine's V8 major collections a second, and its counters. */
export type Pass = { audioPerSecond: number; cpuPerWall?: number; loopMsPerRequest?: number; majorGcPerSecond?: number; counters?: NativeCounters }

export interface EngineHost {
  /** `clients` closed loops send `requests` engine.synthesize() calls in all: one Harvard sentence each, or all 20 when `whole`. */
  pass(clients: number, whole: boolean, requests: number): Promise<Pass>
  stop(): void
}

/**
 * An engine process speaking `subject` (an id of bench/harness/subjects.ts; espeak when absent);
 * `binding` names another build of the addon, `root` another checkout whose engine host (and
 * library) to run, `cpus` pins it (from its start, so its engine sees only them), `nodeOptions` are
 * more of Node's options for it (V8's heap settings).
 */
export async function startEngineHost(options: { subject?: string; binding?: string; root?: string; cpus?: number; nodeOptions?: string[] } = {}): Promise<EngineHost> {
  const env = { ...process.env, ...(options.subject && { HOST_SUBJECT: options.subject }), ...(options.binding && { SVC_TTS_NATIVE_BINDING: options.binding }) }
  const [command, ...args] = workerCommand('engine-host', { cpus: options.cpus, root: options.root, ...(options.nodeOptions && { nodeOptions: options.nodeOptions }) })
  const child: ChildProcess = spawn(command!, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  await new Promise((resolve, reject) => child.once('message', resolve).once('exit', (code) => reject(new Error(`the engine host exited with ${code}`))))
  return {
    pass: (clients, whole, requests) => new Promise<Pass>((resolve) => {
      child.once('message', (m) => resolve(m as Pass))
      child.send({ clients, whole, requests })
    }),
    stop: () => child.send('stop'),
  }
}

/**
 * `count` processes of `program` at once, each writing `text` to a file in `dir`: their audio over
 * the wall time of all; with `cpuTime`, their CPU time (GNU time's) over it too; with `cpus`, on
 * the first `cpus` CPUs.
 */
export function programsAtOnce(dir: string, count: number, program: CliCommand, text: string, options: { cpus?: number; cpuTime?: boolean } = {}): Promise<Pass> {
  const started = performance.now()
  return Promise.all(Array.from({ length: count }, (_, i) => new Promise<{ audio: number; cpu: number }>((resolve, reject) => {
    const file = path.join(dir, `${i}.wav`)
    const times = path.join(dir, `${i}.time`)
    const run = [program.command, ...program.args(text, file)]
    const timed = options.cpuTime ? [GNU_TIME, '-f', '%U %S', '-o', times, ...run] : run
    const [command, ...args] = options.cpus ? ['taskset', '-c', cpuList(options.cpus), ...timed] : timed
    spawn(command!, args, { stdio: 'ignore' })
      .on('error', reject)
      .on('exit', (code) => {
        if (code !== 0) return reject(new Error(`${program.command} exited with ${code}`))
        const [user, system] = options.cpuTime ? readFileSync(times, 'utf8').trim().split(' ').map(Number) : [0, 0]
        resolve({ audio: wavDurationSeconds(readFileSync(file)), cpu: user! + system! })
      })
  }))).then((runs) => {
    const wall = (performance.now() - started) / 1000
    const sum = (key: 'audio' | 'cpu') => runs.reduce((total, run) => total + run[key], 0)
    return { audioPerSecond: sum('audio') / wall, ...(options.cpuTime && { cpuPerWall: sum('cpu') / wall }) }
  })
}

/** `count` espeak-ng processes at once (en-us+f3), each writing ESPEAK_PROGRAM_TEXT, as programsAtOnce. */
export function espeakPrograms(dir: string, count: number, options: { cpus?: number; cpuTime?: boolean } = {}): Promise<Pass> {
  return programsAtOnce(dir, count, programOf(subjectById('espeak')), ESPEAK_PROGRAM_TEXT, options)
}
