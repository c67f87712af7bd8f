import { readdirSync, readFileSync } from 'node:fs'

/** The niceness of every thread of this process, the main thread's first (field 19 of /proc/self/task/<tid>/stat). */
export function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })
}
