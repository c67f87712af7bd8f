/** CPU time of a process's main thread (its event loop), from /proc: the figure the machine's other work inflates least. */
import { readFileSync } from 'node:fs'

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100

/** CPU milliseconds the main thread of process `pid` has used (10 ms resolution). */
export function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}
