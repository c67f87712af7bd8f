import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const sample = path.join(root, 'test/fixtures/voices/speaker.mp3')

describe('voice database durability', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-kill-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps every acknowledged voice and change when the process is SIGKILLed mid-write', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/voice-writer.ts', dir, sample], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
    const created: string[] = []
    const lastUpdate = new Map<string, number>()
    let acknowledged = 0
    let buffered = ''
    await new Promise<void>((resolve, reject) => {
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited early: ${code ?? signal}`))))
      child.stdout.on('data', (data: Buffer) => {
        buffered += data.toString()
        const lines = buffered.split('\n')
        buffered = lines.pop()!
        for (const line of lines) {
          const [kind, id, n] = line.split(' ') as [string, string, string?]
          if (kind === 'created') created.push(id)
          else lastUpdate.set(id, Number(n))
          acknowledged++
        }
        // Killed in the middle of the second voice's updates, while writes are in flight.
        if (created.length >= 2 && (lastUpdate.get(created[1]!) ?? 0) >= 17) child.kill('SIGKILL')
      })
    })
    expect(acknowledged).toBeGreaterThan(60)

    const db = new Database(path.join(dir, 'voices.db'))
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    for (const id of created) {
      const row = db.prepare('SELECT name FROM voices WHERE voice_id = ?').get(id) as { name: string } | undefined
      expect(row).toBeDefined()
      const sampleRow = db.prepare('SELECT length(audio) AS bytes FROM voice_samples WHERE voice_id = ?').get(id) as { bytes: number }
      expect(sampleRow.bytes).toBeGreaterThan(1000)
      // The last acknowledged update is there (one more, unacknowledged, may have landed too).
      const n = Number(row!.name.split('-')[2] ?? 0)
      const acked = lastUpdate.get(id) ?? 0
      expect(n === acked || n === acked + 1).toBe(true)
    }
    db.close()
  }, 120_000)

  it('opens for every process that starts on one new data directory at the same moment', async () => {
    const opens: Promise<string>[] = []
    for (let round = 0; round < 5; round++) {
      const file = path.join(mkdtempSync(path.join(dir, 'new-')), 'voices.db')
      const at = Date.now() + 1500  // past the children's start-up, so that they open together
      for (let i = 0; i < 4; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/voice-opener.ts', file, String(at)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
        opens.push(new Promise((resolve) => {
          let said = ''
          child.stdout.on('data', (data: Buffer) => (said += data.toString()))
          child.on('exit', () => resolve(said.trim()))
        }))
      }
      await Promise.all(opens.slice(-4))
    }
    expect(await Promise.all(opens)).toEqual(Array(20).fill('ok'))
  }, 60_000)
})
