import { execFile } from 'node:child_process'
import { Writable } from 'node:stream'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { batchedLines } from '../../lib/cli/log-lines.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)

describe('batchedLines', () => {
  it('writes the lines of one turn of the event loop in one write, in order', async () => {
    const writes: string[] = []
    const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => (writes.push(String(chunk)), done()) })
    const lines = batchedLines(stream)
    for (let i = 0; i < 100; i++) lines.write(`line ${i}`)
    expect(writes).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    lines.write('next turn')
    lines.close()
    expect(writes).toEqual([Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(''), 'next turn\n'])
  })

  it('loses no line when the process exits with lines still queued', async () => {
    const script = `import { batchedLines } from './lib/cli/log-lines.ts'
const lines = batchedLines(process.stdout)
for (let i = 0; i < 20000; i++) lines.write('line ' + i)
process.exit(0)`
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, maxBuffer: 1 << 24 })
    expect(stdout).toBe(Array.from({ length: 20000 }, (_, i) => `line ${i}\n`).join(''))
  })
})
