/** `svc-tts serve` in a child process, as a user runs it: its stdout lines, its URL, its exit. */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')

export interface Served {
  child: ChildProcess
  lines: string[]
  /** What it wrote to stderr (the last 16 KiB). */
  stderr(): string
  /** Resolves with the first stdout line that passes `test`. */
  waitFor(test: (line: string) => boolean): Promise<string>
  exit: Promise<number | null>
}

export interface Listening extends Served {
  url: string
  port: number
  /** SIGTERM, then the exit code; past `deadlineMs` (when given), SIGKILL and null. */
  stop(deadlineMs?: number): Promise<number | null>
  /** The server process's resident memory now. */
  rssMiB(): number
}

/** A process's resident memory, from /proc. */
export function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return kib / 1024
}

export interface ServeOptions {
  /** Added to the environment (SVC_TTS_API_KEYS '' by default: keys from the data directory). */
  env?: Record<string, string>
  args?: string[]
  /** The soft limit on open files the server runs under (`ulimit -n`). */
  openFiles?: number
}

/** Starts `svc-tts serve` on a free loopback port. */
export function serve(dataDir: string, framework: string, options: ServeOptions = {}): Served {
  // No drain grace unless a test asks for one (its --drain-seconds comes later and wins): a stop is a shutdown at once.
  const argv = ['--import', 'tsx', 'lib/cli/bin.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--framework', framework, '--drain-seconds', '0', ...(options.args ?? [])]
  const env = { ...process.env, SVC_TTS_API_KEYS: '', ...options.env }
  const child = options.openFiles === undefined
    ? spawn(process.execPath, argv, { cwd: root, env })
    : spawn('sh', ['-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, process.execPath, ...argv], { cwd: root, env })
  const lines: string[] = []
  let pending = ''
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = []
  child.stdout!.on('data', (part: Buffer) => {
    pending += String(part)
    const complete = pending.split('\n')
    pending = complete.pop()!
    for (const line of complete) {
      lines.push(line)
      for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve(line)
    }
  })
  let stderr = ''
  child.stderr!.on('data', (part: Buffer) => {
    stderr = (stderr + String(part)).slice(-16_384)
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    child,
    lines,
    stderr: () => stderr,
    exit,
    waitFor: (test) => new Promise((resolve) => {
      const found = lines.find(test)
      if (found) resolve(found)
      else waiters.push({ test, resolve })
    }),
  }
}

/** `svc-tts serve`, once it listens. */
export async function serveListening(dataDir: string, framework: string, options: ServeOptions = {}): Promise<Listening> {
  const served = serve(dataDir, framework, options)
  const started = await Promise.race([
    served.waitFor((line) => line.includes('"listening"')),
    served.exit.then((code) => {
      throw new Error(`svc-tts serve exited with ${code} before listening: ${served.stderr()}`)
    }),
  ])
  const url = (JSON.parse(started) as { url: string }).url
  return {
    ...served,
    url,
    port: Number(new URL(url).port),
    rssMiB: () => rssMiB(served.child.pid!),
    stop: async (deadlineMs) => {
      if (served.child.exitCode === null) served.child.kill('SIGTERM')
      if (deadlineMs === undefined) return served.exit
      const timer = setTimeout(() => served.child.kill('SIGKILL'), deadlineMs)
      const code = await served.exit
      clearTimeout(timer)
      return code
    },
  }
}

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends `text` as it is on a fresh TCP connection and reads the one response (the server closes, or the deadline ends it). */
export function rawRequest(port: number, text: string, deadlineMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const parts: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete response within ${deadlineMs} ms to ${JSON.stringify(text.slice(0, 60))}: ${Buffer.concat(parts).toString('latin1').slice(0, 200)}`))
    }, deadlineMs)
    const finish = () => {
      const raw = Buffer.concat(parts).toString('utf8')
      const [head = '', ...rest] = raw.split('\r\n\r\n')
      const [statusLine = '', ...headerLines] = head.split('\r\n')
      const status = Number(statusLine.split(' ')[1])
      if (!Number.isFinite(status)) return false
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      let body = rest.join('\r\n\r\n')
      const length = headers['content-length']
      if (length !== undefined) {
        if (Buffer.byteLength(body) < Number(length)) return false
        body = Buffer.from(body).subarray(0, Number(length)).toString('utf8')
      } else if (headers['transfer-encoding'] === 'chunked') {
        if (!body.endsWith('0\r\n\r\n')) return false
        body = body.split('\r\n').filter((_, i) => i % 2 === 1).join('')
      }
      clearTimeout(timer)
      socket.destroy()
      resolve({ status, headers, body })
      return true
    }
    socket.on('data', (part: Buffer) => {
      parts.push(part)
      finish()
    })
    socket.on('end', () => {
      if (!finish()) {
        clearTimeout(timer)
        reject(new Error(`the connection ended without a complete response: ${Buffer.concat(parts).toString('latin1').slice(0, 200)}`))
      }
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    socket.write(text)
  })
}
