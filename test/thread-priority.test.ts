/**
 * Synthesis threads run nicer than the process (engine option `threadNice`, default 10), so that
 * the event loop takes posted audio at once even on the CPU a synthesis thread is busy on.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { collect, testEngine, voiceId } from './helpers/engine.js'
import { runNodeWithDeadline } from './helpers/deadline-child.js'

const root = path.resolve(import.meta.dirname, '..')

/** The niceness of every thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })
}

describe('synthesis thread priority', () => {
  it('every synthesis thread (the pool and espeak-ng\'s) runs 10 steps nicer than the event loop by default', async () => {
    const engine = await testEngine()
    // espeak-ng's thread starts with its first stream.
    await collect(engine.speak({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: voiceId('Sarah') } }))
    const own = threadNiceness()[0]!  // the main thread's task comes first
    const niced = threadNiceness().filter((nice) => nice === Math.min(own + 10, 19))
    expect(niced).toHaveLength(engine.counters().poolThreads + 1)
  })

  it('threadNice: 0 leaves them at the process\'s priority', async () => {
    const child = await runNodeWithDeadline(
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
        import { readdirSync, readFileSync } from 'node:fs'
        const { createEngine, PREDEFINED_VOICES } = await import(${JSON.stringify(path.join(root, 'lib/index.ts'))})
        const engine = await createEngine({ threadNice: 0 })
        const voice = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah').record.voice_id
        for await (const _ of engine.speak({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: voice } })) {}
        const nices = readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8')
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
        })
        await engine.close()
        process.stdout.write(JSON.stringify({ nices }))
      `,
      ],
      { cwd: root, deadlineMs: 60_000 },
    )
    expect(child.stderr).toBe('')
    expect(child.status).toBe(0)
    const { nices } = JSON.parse(child.stdout) as { nices: number[] }
    expect(nices.length).toBeGreaterThan(3)
    expect(new Set(nices)).toEqual(new Set([nices[0]]))
  })
})
