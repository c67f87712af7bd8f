/**
 * The server under test, in its own process (so the load generator's work is not in its
 * event loop): the standalone server on loopback with one known key, whose limits are raised as
 * for a gateway that speaks for many users (each connection keeps its own; metrics off when
 * BENCH_METRICS is 'off'). It reports its port, and on request its event-loop delay (p99, max)
 * since the last reset, or the CPU time it has used.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createEngine } from '../../lib/index.js'
import { createTtsServer } from '../../lib/server/index.js'

const key = process.env.BENCH_KEY!

const engine = await createEngine()
const server = createTtsServer({ engine, keys: [key], limits: { concurrentRequests: 10_000, requestsPerWindow: 1_000_000, charactersPerPeriod: 1_000_000_000 }, realtime: { maxContexts: 1000, keyMessagesPerSecond: 1_000_000, keyMessageBurst: 1_000_000 }, ...(process.env.BENCH_METRICS === 'off' && { metrics: false as const }) })
const { port } = await server.listen(0, '127.0.0.1')
const delay = monitorEventLoopDelay({ resolution: 2 })
delay.enable()
process.on('message', (message: string) => {
  if (message === 'reset') delay.reset()
  if (message === 'lag') process.send!({ p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 })
  if (message === 'cpu') process.send!({ cpuUs: process.cpuUsage() })
  if (message === 'stop') void server.close(1000).then(() => engine.close()).then(() => process.exit(0))
})
process.send!({ port })
