/**
 * A real PostgreSQL server from Debian's package, started for a test on a free loopback port in a
 * temporary directory and removed afterwards. PostgreSQL refuses to run as root: as root, the
 * cluster belongs to the `postgres` user and its programs run as that user (setpriv, which execs
 * the program itself, so that signals reach the server).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort } from './ports.js'

export interface PostgresServer {
  /** postgres://svc@127.0.0.1:PORT/svc */
  url: string
  port: number
  /** Stops the server (fast shutdown), for a test of what happens while it is gone. */
  stop(): Promise<void>
  /** Starts it again on the same port and data. */
  restart(): Promise<void>
  /** Stops it and removes its files. */
  remove(): Promise<void>
}

function binaries(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
  return `/usr/lib/postgresql/${versions[0]}/bin`
}

const asRoot = process.getuid?.() === 0

/** The postgres user's uid and gid, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'))
  if (!line) throw new Error('no postgres user: install the postgresql package')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** The command as the postgres user when this process is root. */
function asOwner(program: string, args: string[]): [string, string[]] {
  if (!asRoot) return [program, args]
  const { uid, gid } = postgresUser()
  return ['setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', program, ...args]]
}

async function accepting(url: string, deadline: number): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 })
    try {
      await client.connect()
      await client.end()
      return
    } catch (error) {
      await client.end().catch(() => {})
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binaries()
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-pg-'))
  if (asRoot) {
    const { uid, gid } = postgresUser()
    chownSync(dir, uid, gid)
  }
  const data = path.join(dir, 'data')
  const [initdb, initArgs] = asOwner(`${bin}/initdb`, ['-D', data, '-U', 'svc', '-A', 'trust', '--no-sync', '-E', 'UTF8'])
  const init = spawnSync(initdb, initArgs, { encoding: 'utf8' })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`)
  const port = await freePort()
  const url = `postgres://svc@127.0.0.1:${port}/postgres`
  let child: ChildProcess | undefined
  const start = async () => {
    const [program, args] = asOwner(`${bin}/postgres`, ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'])
    child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let log = ''
    child.stderr!.on('data', (part: Buffer) => (log += String(part)))
    try {
      await accepting(url, Date.now() + 20_000)
    } catch (error) {
      throw new Error(`PostgreSQL did not start: ${String(error)}\n${log}`)
    }
  }
  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    // SIGINT: the fast shutdown (active transactions rolled back, clients cut).
    running.kill('SIGINT')
    await exited
  }
  await start()
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query('CREATE DATABASE svc')
  await admin.end()
  return {
    url: url.replace(/\/postgres$/, '/svc'),
    port,
    stop,
    restart: start,
    remove: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
