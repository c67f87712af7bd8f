/**
 * `svc-tts serve` as the command runs it (its log line per request on stdout, which the study
 * reads as a log collector would), with the synthesis threads' nice increment from THREAD_NICE,
 * and limits that never refuse the load.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { serve } from '../../lib/cli/serve.js'

await serve({
  port: 0,
  host: '127.0.0.1',
  dataDir: mkdtempSync(path.join(tmpdir(), 'svc-tts-bench-')),
  framework: 'standalone',
  shutdownDeadlineMs: 1000,
  drainGraceMs: 0,
  playground: false,
  limits: { concurrentRequests: 10_000, requestsPerWindow: 100_000_000, charactersPerPeriod: 1_000_000_000 },
  engine: { threadNice: Number(process.env.THREAD_NICE) },
})
process.exit(0)
