/**
 * Synthesis threads run nicer than the process (engine option `threadNice`, default 10), so that
 * the event loop takes posted audio at once even on the CPU a synthesis thread is busy on.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runNodeWithDeadline } from '../helpers/deadline-child.js'
import { collect, testEngine, voiceId } from '../helpers/engine.js'
import { threadNiceness } from '../helpers/thread-niceness.js'

const root = path.resolve(import.meta.dirname, '../..')

describe('synthesis thread priority', () => {
  it('every synthesis thread (the pool and espeak-ng\'s) runs 10 steps nicer than the event loop by default', async () => {
    const engine = await testEngine()
    // espeak-ng's thread starts with its first stream.
    await collect(engine.speak({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: voiceId('Sarah') } }))
    const [own, ...others] = threadNiceness()
    expect(others.filter((nice) => nice === Math.min(own! + 10, 19))).toHaveLength(engine.counters().poolThreads + 1)
  })

  it('threadNice: 0 leaves them at the process\'s priority', async () => {
    const module = (file: string) => JSON.stringify(path.join(root, file))
    const child = await runNodeWithDeadline(['--import', 'tsx', '--input-type=module', '-e', `
      const { createEngine, PREDEFINED_VOICES } = await import(${module('lib/index.ts')})
      const { threadNiceness } = await import(${module('test/helpers/thread-niceness.ts')})
      const engine = await createEngine({ threadNice: 0 })
      const voice = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah').record.voice_id
      for await (const _ of engine.speak({ model_id: 'svc_flash_v1.5', transcript: 'Hello there.', voice: { mode: 'id', id: voice } })) {}
      process.stdout.write(JSON.stringify(threadNiceness()))
      await engine.close()
    `], { cwd: root, deadlineMs: 60_000 })
    expect(child.stderr).toBe('')
    expect(child.status).toBe(0)
    const nices = JSON.parse(child.stdout) as number[]
    expect(nices.length).toBeGreaterThan(3)
    expect(new Set(nices)).toEqual(new Set([nices[0]]))
  })
})
