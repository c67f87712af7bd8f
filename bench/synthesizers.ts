/**
 * `npm run bench:detail`: every synthesizer in detail, each in-process against its command-line
 * program (first audio, RTF, memory, concurrent streams), and the micro-benchmarks of the hot
 * primitives; writes bench/DETAIL.md and prints it. `npm run bench` (bench/streaming-core.ts)
 * measures the streaming core against its targets into bench/RESULTS.md.
 */
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { measureSubjects } from './harness/measure-subjects.js'
import { machineInfo } from './harness/machine.js'
import { renderReport } from './harness/detail-report.js'
import { runSuite } from './harness/micro-benchmarks.js'
import { checkTargets } from './harness/targets.js'

const startedAt = new Date()
const started = performance.now()
const machine = machineInfo()
const results = await measureSubjects()
process.stderr.write('[bench] tinybench suite\n')
const suite = await runSuite()
const run = { startedAt, durationSeconds: (performance.now() - started) / 1000, machine, loadAverageAfter: os.loadavg()[0]! }
const report = renderReport(run, results, checkTargets(results), suite)
writeFileSync(fileURLToPath(new URL('./DETAIL.md', import.meta.url)), report)
process.stdout.write(report)
