/**
 * Issue 7, native side: worker threads terminated or exited while they stream, and an engine that
 * cannot start, in child processes so that a crash shows up as the child's exit.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectCleanExit, INDEX, root, runChild, streamingWorkerSource } from './native-child.js'

describe('hardening, native lifecycle (issue 7)', () => {
  it('case 4: terminating workers while they stream never aborts the process', async () => {
    // Before the fix, a delivery callback that ran while the worker stopped threw out of the
    // thread-safe function (Buffer::Copy in ToJs): SIGABRT within 30 rounds, every time.
    const result = await runChild(`
      import { Worker } from 'node:worker_threads'
      const source = ${JSON.stringify(streamingWorkerSource(['svc_flash_v1.5']))}
      for (let round = 0; round < 25; round++) {
        const worker = new Worker(source, { eval: true })
        await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
        await new Promise((r) => setTimeout(r, Math.random() * 30))
        await worker.terminate()
      }
      const { createEngine, PREDEFINED_VOICES } = await import(${INDEX})
      const engine = await createEngine()
      const wav = await engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still here.', voice: { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id } })
      console.log('ok', wav.length)
    `)
    expectCleanExit(result)
    expect(result.stdout).toMatch(/ok \d{4,}/)
  }, 180_000)

  it('case 5: process.exit() while four workers stream exits with its code', async () => {
    // Before the fix: SIGABRT in about half of the runs.
    for (let run = 0; run < 4; run++) {
      const result = await runChild(`
        import { Worker } from 'node:worker_threads'
        const source = ${JSON.stringify(streamingWorkerSource(['svc_flash_v1.5', 'svc_pro_v1.0']))}
        const workers = Array.from({ length: 4 }, () => new Worker(source, { eval: true }))
        await Promise.all(workers.map((w) => new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject) })))
        setTimeout(() => process.exit(0), 50 + ${run} * 60)
      `)
      expectCleanExit(result)
    }
  }, 240_000)

  it('case 15: terminate() of a worker queued behind busy pool threads, and createEngine() in a worker, are prompt', async () => {
    // Before the fix, a closing worker waited until its queued tasks had run behind everyone
    // else's (17.9 s in the report; 2.3 s with this load on two pool threads), and init queued
    // behind synthesis (1.7 s here).
    const result = await runChild(`
      import { Worker } from 'node:worker_threads'
      const { createEngine, PREDEFINED_VOICES } = await import(${INDEX})
      const engine = await createEngine({ threads: 2 })
      const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
      const long = 'The birch canoe slid on the smooth planks, glue the sheet to the dark blue background. '.repeat(200)
      const busy = Array.from({ length: 60 }, () => engine.synthesize({ model_id: 'svc_pro_v1.0', transcript: long, voice }).catch(() => {}))
      // Planning yields to the event loop, so the 60 requests reach the pool over a while: wait for them.
      for (let i = 0; i < 200 && engine.counters().queuedTasks <= 20; i++) await new Promise((r) => setTimeout(r, 50))
      const queuedBefore = engine.counters().queuedTasks
      const worker = new Worker(\`
        import { parentPort } from 'node:worker_threads'
        import { register } from 'tsx/esm/api'
        register()
        const { createEngine, PREDEFINED_VOICES } = await import(${INDEX})
        const t0 = performance.now()
        const engine = await createEngine()
        const createMs = performance.now() - t0
        const voice = { mode: 'id', id: PREDEFINED_VOICES[0].record.voice_id }
        const it = engine.stream({ model_id: 'svc_pro_v1.0', transcript: 'A worker speaks. '.repeat(50), voice })[Symbol.asyncIterator]()
        it.next().catch(() => {})
        parentPort.postMessage({ createMs })
      \`, { eval: true })
      const { createMs } = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
      await new Promise((r) => setTimeout(r, 200))
      const t0 = performance.now()
      await worker.terminate()
      const terminateMs = performance.now() - t0
      console.log(JSON.stringify({ queuedBefore, createMs, terminateMs }))
      await engine.close()
      process.exit(0)
    `)
    expectCleanExit(result)
    const { queuedBefore, createMs, terminateMs } = JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, number>
    expect(queuedBefore).toBeGreaterThan(20)  // the pool really was busy
    expect(createMs).toBeLessThan(1000)
    expect(terminateMs).toBeLessThan(1000)
  }, 120_000)

  it('case 16: an espeakDataPath that holds no espeak-ng data fails with a clear, coded error', async () => {
    // A fresh process: espeak-ng is initialised once per process.
    const result = await runChild(`
      import { createRequire } from 'node:module'
      const { loadNative } = await import(${JSON.stringify(path.join(root, 'lib/native.ts'))})
      const native = loadNative()
      for (const espeakDataPath of ['/etc', '/nonexistent']) {
        try {
          await native.init({ espeakDataPath })
          console.log('accepted', espeakDataPath)
        } catch (error) {
          console.log(JSON.stringify({ code: error.code, message: error.message }))
        }
      }
      const ok = await native.init({})
      console.log('then default', ok.espeakSampleRate)
      try {
        await native.init({ espeakDataPath: '/usr/share' })
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, message: error.message }))
      }
      for (const options of [{ threads: 0 }, { threads: 2.5 }, { threadNice: -1 }, { threadNice: 20 }, { threadNice: '5' }, { espeakDataPath: 7 }, { espeakDataPath: '' }]) {
        try { await native.init(options) } catch (error) { console.log(JSON.stringify({ code: error.code, type: error.constructor.name })) }
      }
    `)
    expectCleanExit(result)
    const lines = result.stdout.trim().split('\n')
    expect(JSON.parse(lines[0]!)).toEqual({ code: 'ERR_SVC_ESPEAK_INIT', message: expect.stringMatching(/espeakDataPath '\/etc' holds no espeak-ng data/) })
    expect(JSON.parse(lines[1]!)).toEqual({ code: 'ERR_SVC_ESPEAK_INIT', message: expect.stringMatching(/'\/nonexistent' holds no espeak-ng data/) })
    expect(lines[2]).toBe('then default 22050')
    expect(JSON.parse(lines[3]!)).toEqual({ code: 'ERR_SVC_ESPEAK_INIT', message: expect.stringMatching(/already runs with the system's data/) })
    for (const line of lines.slice(4)) expect(JSON.parse(line)).toEqual({ code: 'ERR_SVC_INVALID_ARGUMENT', type: 'TypeError' })
    expect(lines).toHaveLength(11)
  }, 60_000)

  it('case 16: createEngine with espeakDataPath /etc rejects with that error, and the process lives on', async () => {
    const result = await runChild(`
      import { createEngine } from ${INDEX}
      try { await createEngine({ espeakDataPath: '/etc' }); console.log('created') } catch (error) { console.log(typeof error.code, error.message) }
    `)
    expectCleanExit(result)
    expect(result.stdout).toMatch(/^string .*'\/etc' holds no espeak-ng data/)
  })
})
