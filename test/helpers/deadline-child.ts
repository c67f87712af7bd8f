import { spawn } from 'node:child_process'

export interface DeadlineChildResult {
  stdout: string
  stderr: string
  status: number | null
  signal: NodeJS.Signals | null
  /** The child ran past its deadline and was killed (SIGKILL). */
  timedOut: boolean
}

/** Runs node with `args` in `cwd`, collecting its output; kills it at `deadlineMs`. Never rejects. */
export function runNodeWithDeadline(args: string[], options: { cwd: string; deadlineMs: number; env?: NodeJS.ProcessEnv }): Promise<DeadlineChildResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()))
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.deadlineMs)
    // 'close', not 'exit': the child's output is all read by then.
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ stdout, stderr, status, signal, timedOut })
    })
  })
}
