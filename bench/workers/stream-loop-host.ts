/**
 * The in-process subject of bench/studies/server-cost.ts in a process of its own, so that it can be
 * pinned to the server's CPUs: an engine at the default thread priority whose closed-loop clients
 * stream one request after another. On a message { body, clients, seconds, bytesPerSecond } it runs
 * one cell and answers { rate, requests }; on 'stop' it closes the engine and exits.
 */
import { createEngine, type Engine } from '../../lib/index.js'
import { closedLoop, streamedBytes } from '../harness/closed-loop.js'

type Cell = { body: Parameters<Engine<string>['stream']>[0]; clients: number; seconds: number; bytesPerSecond: number }

const engine = await createEngine()
process.on('message', (message: Cell | 'stop') => {
  if (message === 'stop') return void engine.close().then(() => process.exit(0))
  void closedLoop(message.clients, message.seconds, streamedBytes(engine, message.body), message.bytesPerSecond).then((result) => process.send!(result))
})
process.send!('ready')
