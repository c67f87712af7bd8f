// A replica's job worker alone, as a child process the jobs tests can SIGKILL: run with
// `node --import tsx test/helpers/job-worker.ts <redis url> <jobs dir> <lock ms> [<jobs at once>
// <concurrent requests a key>]` (the last: a Redis limiter the jobs hold slots of). Each log entry
// is a JSON line on stdout; {"msg":"ready"} once it takes jobs; SIGTERM closes it.
import { createEngine } from '../../lib/index.js'
import { JobService } from '../../lib/server/jobs/jobs.js'
import { sharedLimits } from '../../lib/server/redis/shared-limits.js'

const [redisUrl, dir, lockMs, concurrency = '1', concurrentRequests] = process.argv.slice(2)
const print = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`)
// Long enough for the tests' 20 000-word jobs.
const engine = await createEngine({ maxTranscriptChars: 200_000, maxAudioSeconds: 20_000 })
const limits = concurrentRequests === undefined ? undefined : await sharedLimits({ url: redisUrl! }, { prefix: 'job-worker', limits: { concurrentRequests: Number(concurrentRequests) } })
const jobs = await JobService.start({
  redisUrl: redisUrl!,
  engine,
  jobs: { dir: dir!, lockMs: Number(lockMs), maxCharacters: 200_000, concurrency: Number(concurrency) },
  ...(limits && { limiter: limits.limiter }),
  log: print,
  onWarning: (message) => print({ msg: message }),
})
print({ msg: 'ready', pid: process.pid })
process.once('SIGTERM', () => {
  void jobs.close().then(() => Promise.all([engine.close(), limits?.close()])).then(() => process.exit(0))
})
