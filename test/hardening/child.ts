/**
 * Runs a scenario in a fresh Node process, so that a crash shows up as a signal, a hang as the
 * deadline, and memory as the child's own peak RSS. The scenario's source runs after PRELUDE,
 * which gives it an engine, voices, `settle()` (a call's outcome as a code, never a throw) and
 * `watch()` (the event loop's worst stall, see stall.ts); it ends by calling `report(value)`.
 */
import path from 'node:path'
import { runNodeWithDeadline } from '../helpers/deadline-child.js'

const root = path.resolve(import.meta.dirname, '../..')

export interface ChildResult<T> {
  signal: NodeJS.Signals | null
  status: number | null
  timedOut: boolean
  /** The value the scenario reported, or undefined when it reported none. */
  report: T | undefined
  /** Peak resident memory of the child, in MB. */
  peakRssMB: number
  stderr: string
}

export const PRELUDE = `
import { createEngine, PREDEFINED_VOICES, TtsError } from './lib/index.ts'
import { watchStalls } from './test/helpers/stall.ts'
const voice = (name = 'Sarah') => ({ mode: 'id', id: PREDEFINED_VOICES.find((v) => v.record.name === name).record.voice_id })
const request = (transcript, extra = {}) => ({ model_id: 'svc_flash_v1.5', transcript, voice: voice(), ...extra })
/** A call's outcome: { code } for a TtsError, { error } for anything else, { value } on success. */
async function settle(work) {
  try {
    return { value: await work() }
  } catch (error) {
    return error instanceof TtsError ? { code: error.code, message: error.message } : { error: String(error && error.stack || error) }
  }
}
const stalls = watchStalls()
/** Starts measuring the event loop's worst stall from now (module loading and engine start excluded). */
function watch() { stalls.reset() }
function report(value) {
  const worstLagMs = stalls.worstMs()
  stalls.stop()
  const peakRssMB = process.resourceUsage().maxRSS / 1024
  process.stdout.write('REPORT ' + JSON.stringify({ ...value, worstLagMs, peakRssMB }) + '\\n')
  process.exit(0)
}
`

/** Runs PRELUDE + `source` in a child (with --expose-gc) and waits for it, at most `deadlineMs`. */
export async function runChild<T>(source: string, deadlineMs = 60_000, env: Record<string, string> = {}): Promise<ChildResult<T>> {
  const { stdout, stderr, status, signal, timedOut } = await runNodeWithDeadline(
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', `${PRELUDE}\n${source}`],
    { cwd: root, deadlineMs, env: { ...process.env, ...env } },
  )
  const line = stdout.split('\n').find((l) => l.startsWith('REPORT '))
  const report = line ? (JSON.parse(line.slice('REPORT '.length)) as T & { peakRssMB?: number }) : undefined
  return { signal, status, timedOut, report, peakRssMB: report?.peakRssMB ?? NaN, stderr }
}
