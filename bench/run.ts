/**
 * `npm run bench:detail`: runs the harness (first audio, RTF, memory, concurrency against the
 * CLIs) and the tinybench suite, writes bench/DETAIL.md and prints it. `npm run bench` measures
 * the issue-6 targets (bench/acceptance.ts, bench/RESULTS.md).
 */
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { runHarness } from './harness.js'
import { machineInfo } from './machine.js'
import { renderReport } from './report.js'
import { runSuite } from './suite.js'
import { checkTargets } from './targets.js'

const startedAt = new Date()
const started = performance.now()
const machine = machineInfo()
const results = await runHarness()
process.stderr.write('[bench] tinybench suite\n')
const suite = await runSuite()
const run = { startedAt, durationSeconds: (performance.now() - started) / 1000, machine, loadAverageAfter: os.loadavg()[0]! }
const report = renderReport(run, results, checkTargets(results), suite)
writeFileSync(fileURLToPath(new URL('./DETAIL.md', import.meta.url)), report)
process.stdout.write(report)
