// A replica's job worker alone, as a child process the jobs tests can SIGKILL: run with
// `node --import tsx test/helpers/job-worker.ts <redis url> <jobs dir> <lock ms>`. Each log entry
// is a JSON line on stdout; {"msg":"ready"} once it takes jobs; SIGTERM closes it.
import { createEngine } from '../../lib/index.js'
import { JobService } from '../../lib/server/jobs/jobs.js'

const [redisUrl, dir, lockMs] = process.argv.slice(2)
const print = (entry: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(entry)}\n`)
// Long enough for the tests' 20 000-word jobs.
const engine = await createEngine({ maxTranscriptChars: 200_000, maxAudioSeconds: 20_000 })
const jobs = await JobService.start({ redisUrl: redisUrl!, engine, jobs: { dir: dir!, lockMs: Number(lockMs), maxCharacters: 200_000 }, log: print, onWarning: (message) => print({ msg: message }) })
print({ msg: 'ready', pid: process.pid })
process.once('SIGTERM', () => {
  void jobs.close().then(() => engine.close()).then(() => process.exit(0))
})
