/**
 * System calls a thread makes while `work` runs, counted by `strace -c` attached to it (Debian's
 * strace). strace slows the thread it follows, so the counts are for dividing by the work done,
 * never for timing it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** How many of each of `calls` thread `tid` made during `work`. */
export async function countSyscalls<T>(tid: number, calls: readonly string[], work: () => Promise<T>): Promise<{ counts: Map<string, number>; result: T }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-strace-'))
  const output = path.join(dir, 'counts.txt')
  const strace = spawn('strace', ['-c', '-e', `trace=${calls.join(',')}`, '-p', String(tid), '-o', output], { stdio: 'ignore' })
  const exited = new Promise((resolve) => strace.once('exit', resolve))
  try {
    await sleep(500)  // attached
    const result = await work()
    strace.kill('SIGINT')
    await exited
    const counts = new Map<string, number>()
    // strace -c's table: % time, seconds, usecs/call, calls, [errors,] syscall
    for (const line of readFileSync(output, 'utf8').split('\n')) {
      const fields = line.trim().split(/\s+/)
      const call = fields.at(-1)!
      if (calls.includes(call)) counts.set(call, Number(fields[3]))
    }
    return { counts, result }
  } finally {
    strace.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}
