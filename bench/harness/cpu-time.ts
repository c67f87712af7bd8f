/** CPU time of a process, or of its main thread (its event loop), from /proc; and of this process, from Node. */
import { readFileSync } from 'node:fs'

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100

/** User and system ticks of a /proc stat line, in ms (10 ms resolution). */
function statCpuMs(file: string): number {
  const fields = readFileSync(file, 'utf8').replace(/^.*\) /, '').split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/**
 * The scheduler's count of a thread's time on a CPU, in ms to the nanosecond (it may lag by the
 * running slice); undefined where the kernel keeps no schedstat.
 */
function runTimeMs(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

/**
 * CPU milliseconds the main thread of process `pid` has used: the figure the machine's other work
 * inflates least. From schedstat where the kernel keeps it: a few hundred requests of a fast voice
 * take only a few of stat's 10 ms ticks.
 */
export const mainThreadCpuMs = (pid: number): number => runTimeMs(`/proc/${pid}/task/${pid}/schedstat`) ?? statCpuMs(`/proc/${pid}/task/${pid}/stat`)

/** CPU milliseconds process `pid` has used, every thread of it. */
export const processCpuMs = (pid: number): number => statCpuMs(`/proc/${pid}/stat`)

/** CPU milliseconds this process has used, every thread of it. */
export const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
