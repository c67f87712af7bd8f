/** haproxy from Debian's package, running the repository's own configuration (deploy/haproxy/svc-tts.cfg) on loopback. */
import { spawn } from 'node:child_process'
import path from 'node:path'

const CONFIG = path.resolve(import.meta.dirname, '../../deploy/haproxy/svc-tts.cfg')

export interface Balancer {
  url: string
  stop(): Promise<void>
}

/** Starts haproxy in front of two replicas (`host:port` each); resolves once it accepts connections. */
export async function startBalancer(port: number, replicas: [string, string]): Promise<Balancer> {
  const child = spawn('haproxy', ['-db', '-f', CONFIG], {
    env: { ...process.env, SVC_TTS_LB_BIND: `127.0.0.1:${port}`, SVC_TTS_REPLICA_A: replicas[0], SVC_TTS_REPLICA_B: replicas[1] },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  child.stderr!.on('data', (part: Buffer) => (log += String(part)))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${log}`)
    const answered = await fetch(`${url}/healthz`).then(() => true, () => false)
    if (answered) break
    if (Date.now() > deadline) throw new Error(`haproxy did not accept connections: ${log}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
