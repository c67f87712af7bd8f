/**
 * The unread audio of native streams is reported to V8 as external memory (issue 20, case 23),
 * and the report balances: whatever a stream held is given back when it is read, cancelled or
 * collected, and a worker thread's streams are reported to its own isolate only. Runs in a child
 * with --expose-gc, so that collection can be forced.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runNodeWithDeadline } from '../helpers/deadline-child.js'

const root = path.resolve(import.meta.dirname, '../..')
const NATIVE = JSON.stringify(path.join(root, 'lib/native.ts'))

/** Native streams of f32 audio at 48 kHz from espeak-ng, and a way to wait for their counters. */
const SETUP = `
  const { bundledEspeakDataPath, loadNative } = await import(${NATIVE})
  const native = loadNative()
  await native.init({ espeakDataPath: bundledEspeakDataPath() })
  const plan = {
    backend: 'espeak', voice: 'en-us', speed: 1, requestSpeed: 1, pitch: 1, sampleRate: 48000, encoding: 'pcm_f32le',
    queueCapacity: 2, aheadSeconds: 5, chunks: Array.from({ length: 12 }, () => ({ pieces: [{ kind: 'text', text: 'The birch canoe slid on the smooth planks.' }] })),
  }
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  async function until(condition) {
    for (let i = 0; i < 500 && !condition(native.counters()); i++) await sleep(10)
    return native.counters()
  }
  /** Once nothing runs: every change is reported (a report is posted after the last one). */
  const settled = () => until((c) => c.activeTasks === 0 && c.externalBytes === c.unreadAudioBytes)
`

async function run(source: string): Promise<Record<string, unknown>> {
  const { stdout, stderr, status, signal } = await runNodeWithDeadline(
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', `${SETUP}\n${source}`],
    { cwd: root, deadlineMs: 60_000 },
  )
  expect(signal, stderr).toBeNull()
  expect(status, stderr).toBe(0)
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>
}

describe('native streams report their unread audio to V8', () => {
  it('as it grows, and give it all back when read to the end, cancelled or collected', async () => {
    const report = await run(`
      const out = {}
      // Each stream in a function of its own: none stays reachable after it.
      await (async () => {
        const read = new native.SynthStream(plan)
        while (await read.next()) {}
        out.afterRead = (await settled()).externalBytes
      })()
      await (async () => {  // stalled at its ahead bound, then cancelled
        const stalled = new native.SynthStream(plan)
        await stalled.next()
        out.stalled = await settled()
        stalled.cancel()
        out.afterCancel = (await settled()).externalBytes
      })()
      // Read once and dropped: collected, never cancelled by hand.
      await (async () => { for (let i = 0; i < 8; i++) await new native.SynthStream(plan).next() })()
      out.dropped = await settled()
      for (let i = 0; i < 20 && native.counters().liveStreams > 0; i++) { globalThis.gc(); await sleep(20) }
      out.afterCollect = await settled()
      console.log(JSON.stringify(out))
    `)
    const { stalled, dropped, afterCollect } = report as Record<string, Record<string, number>>
    expect(report.afterRead).toBe(0)
    // A stalled stream holds seconds of audio (192 kB a second), all of it reported.
    expect(stalled!.externalBytes).toBeGreaterThan(192_000)
    expect(stalled!.externalBytes).toBe(stalled!.unreadAudioBytes)
    expect(report.afterCancel).toBe(0)
    expect(dropped!.externalBytes).toBeGreaterThan(8 * 192_000)
    expect(afterCollect!.liveStreams).toBe(0)
    expect(afterCollect!.externalBytes).toBe(0)
    expect(afterCollect!.unreadAudioBytes).toBe(0)
  })

  it("a worker's streams are its own isolate's; terminating it with streams held leaves the main thread's report at zero", async () => {
    const report = await run(`
      import { Worker } from 'node:worker_threads'
      const worker = new Worker(\`
        import { parentPort } from 'node:worker_threads'
        import { register } from 'tsx/esm/api'
        register()
        ${SETUP}
        const held = []
        for (let i = 0; i < 4; i++) { const stream = new native.SynthStream(plan); await stream.next(); held.push(stream) }
        parentPort.postMessage((await settled()).externalBytes)
      \`, { eval: true })
      const inWorker = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
      const inMain = native.counters().externalBytes
      await worker.terminate()
      await sleep(100)
      console.log(JSON.stringify({ inWorker, inMain, afterTerminate: native.counters().externalBytes, unread: native.counters().unreadAudioBytes }))
    `)
    expect(report.inWorker).toBeGreaterThan(4 * 192_000)
    expect(report.inMain).toBe(0)
    expect(report.afterTerminate).toBe(0)
    expect(report.unread).toBe(0)  // the worker's streams were freed with it
  })
})
