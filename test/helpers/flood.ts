/** Runs test/helpers/ws-flooder.ts in a child process and reads its summary. */
import { spawn } from 'node:child_process'
import { setPriority } from 'node:os'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

export interface FloodSummary {
  sent: number
  connections: number
  /** Handshakes the server refused. */
  refused: number
  /** Connections still open when the flooder's time was up (it left them). */
  leftOpen: number
  /** Closes of the server's, as "code reason", and how often. */
  closes: Record<string, number>
}

export interface FloodOptions {
  url: string
  ms: number
  frame: string
  paused?: boolean
  /** Connections flooding at once (default 1). */
  parallel?: number
}

/** Starts the flood; `done` resolves with its summary, or rejects when the flooder is still running `ms` + 15 s later. */
export function startFlood(options: FloodOptions): { done: Promise<FloodSummary> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/ws-flooder.ts', JSON.stringify(options)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  // An attacker floods from its own machine: here it shares the server's few cores, so it runs at
  // the lowest priority, and what the server spends on the flood is what a test measures.
  setPriority(child.pid!, 19)
  let output = ''
  child.stdout.on('data', (part: Buffer) => (output += String(part)))
  const done = new Promise<FloodSummary>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the flooder did not finish: ${output}`))
    }, options.ms + 15_000)
    child.once('exit', () => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(output) as FloodSummary)
      } catch {
        reject(new Error(`the flooder printed no summary: ${output}`))
      }
    })
  })
  return { done }
}
