/** A redis-server of the test's own, on a free loopback port, its files in a temporary folder. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from './ports.js'

export interface RedisServer {
  url: string
  port: number
  /** Stops the server (SIGKILL: as a crash would); start() brings one back on the same port. */
  kill(): Promise<void>
  start(): Promise<void>
  /** Freezes the server (SIGSTOP): connections stay open and nothing answers, as a hung host; resume() thaws it. */
  pause(): void
  resume(): void
  /** Stops it and removes its folder. */
  stop(): Promise<void>
}

/** Resolves once the server says it accepts connections; rejects if it exits or takes over 10 s. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${output}`)), 10_000)
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString()
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server exited (${code}):\n${output}`))
    })
  })
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

export async function startRedis(): Promise<RedisServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    await ready(child)
  }
  const kill = async () => {
    if (!child) return
    const running = child
    child = undefined
    running.kill('SIGKILL')
    running.kill('SIGCONT')
    await exited(running)
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    stop: async () => {
      await kill()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
