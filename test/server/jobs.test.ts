// Long-form jobs on BullMQ (lib/server/jobs/): a 20 000-word job whose worker process is SIGKILLed
// at about half is finished by another worker process, from the last chunk the first committed;
// its audio, read while it was made and after, equals one synthesis of the request byte for byte;
// progress only moves forward; a cancel stops a running job; the key's limits apply; results expire.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, type Engine } from '../../lib/index.js'
import { JobService, type JobStatus } from '../../lib/server/jobs/jobs.js'
import { jobRoutes } from '../../lib/server/jobs/routes.js'
import { voiceId } from '../helpers/engine.js'
import { startRedis, type RedisServer } from '../helpers/redis.js'
import { serveListening } from '../helpers/served.js'
import { KEY, post, start, type Running } from '../helpers/server.js'

const root = path.resolve(import.meta.dirname, '../..')
const OTHER_KEY = 'sk_test_other_full_key_0123456789abcdefgh'
const THIRD_KEY = 'sk_test_third_full_key_0123456789abcdefgh'
const SENTENCE = 'The birch canoe slid on the smooth planks, and the sheet was glued to the dark blue background.'
const WORDS = SENTENCE.split(' ').length
const TRANSCRIPT = Array.from({ length: Math.ceil(20_000 / WORDS) }, () => SENTENCE).join(' ')
const request = (transcript: string) => ({ model_id: 'svc_flash_v1.5', transcript, voice: { mode: 'id', id: voiceId('Sarah') }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 8000 } })
const LOCK_MS = 1500
const codeOf = async (response: Response) => ((await response.json()) as { error_code: string }).error_code

interface WorkerProcess {
  child: ChildProcess
  lines: Record<string, unknown>[]
  waitFor(test: (entry: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>
  stop(): Promise<void>
}

function startWorker(redisUrl: string, dir: string, extra: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/job-worker.ts', redisUrl, dir, String(LOCK_MS), ...extra], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] })
  const lines: Record<string, unknown>[] = []
  const waiters = new Set<() => void>()
  let pending = ''
  child.stdout!.on('data', (data: Buffer) => {
    pending += data.toString()
    const complete = pending.split('\n')
    pending = complete.pop()!
    for (const line of complete) lines.push(JSON.parse(line) as Record<string, unknown>)
    for (const wake of waiters) wake()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    child,
    lines,
    waitFor: (test, ms = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line in ${ms} ms: ${JSON.stringify(lines)}`)), ms)
        const check = () => {
          const found = lines.find(test)
          if (!found) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
        }
        waiters.add(check)
        check()
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}

let redis: RedisServer
let dir: string
let engine: Engine
let jobs: JobService
let api: Running
const workers: WorkerProcess[] = []
/** The one-shot synthesis of TRANSCRIPT, made once. */
let oneShot: Buffer | undefined

async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()))
}

beforeAll(async () => {
  redis = await startRedis()
  dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-jobs-'))
  engine = await createEngine({ maxTranscriptChars: 200_000, maxAudioSeconds: 20_000 })
  // The replica clients talk to runs no worker: the jobs run in the worker processes.
  jobs = await JobService.start({ redisUrl: redis.url, engine, jobs: { dir, worker: false, maxCharacters: 200_000 } })
  api = await start('standalone', { engine, keys: [KEY, OTHER_KEY, THIRD_KEY], routes: jobRoutes(jobs), limits: { charactersPerPeriod: 2 * TRANSCRIPT.length + 1000 } })
})

afterAll(async () => {
  await stopWorkers()
  await api?.close(1000)
  await jobs?.close()
  await engine?.close()
  await redis?.stop()
  await rm(dir, { recursive: true, force: true })
})

async function status(id: string, key = KEY): Promise<{ code: number; body: JobStatus & { error_code?: string } }> {
  const response = await fetch(`${api.base}/jobs/${id}`, { headers: { 'x-api-key': key } })
  return { code: response.status, body: (await response.json()) as JobStatus & { error_code?: string } }
}

/** Polls the job's status every 25 ms, recording each, until `until` holds (or `ms` pass). */
async function watch(id: string, seen: JobStatus[], until: (status: JobStatus) => boolean, ms: number): Promise<JobStatus> {
  const deadline = Date.now() + ms
  for (;;) {
    const { code, body } = await status(id)
    expect(code, JSON.stringify(body)).toBe(200)  // a job's status is read whatever it is doing
    seen.push(body)
    if (until(body)) return body
    if (Date.now() > deadline) throw new Error(`job ${id} still ${JSON.stringify(body)} after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('long-form jobs', () => {
  it('a 20 000-word job whose worker is SIGKILLed at about half is finished by another, its audio byte-identical to one synthesis, its progress only moving forward', async () => {
    const first = startWorker(redis.url, dir)
    workers.push(first)
    await first.waitFor((entry) => entry.msg === 'ready')
    const made = await post(api.base, '/jobs', request(TRANSCRIPT))
    expect(made.status).toBe(202)
    const { job_id: id, state } = (await made.json()) as JobStatus
    expect(state).toBe('queued')
    expect(made.headers.get('location')).toBe(`/jobs/${id}`)
    // A client reads the audio while it is made, across the kill.
    const streamed = fetch(`${api.base}/jobs/${id}/audio`, { headers: { 'x-api-key': KEY } }).then(async (response) => {
      expect(response.status).toBe(200)
      return Buffer.from(await response.arrayBuffer())
    })
    const seen: JobStatus[] = []
    const half = await watch(id, seen, (now) => now.progress.characters >= TRANSCRIPT.length / 2, 60_000)
    first.child.kill('SIGKILL')
    await first.stop()
    expect(half.state).toBe('running')
    expect(half.progress.characters).toBeLessThan(TRANSCRIPT.length)

    const second = startWorker(redis.url, dir)
    workers.push(second)
    const done = await watch(id, seen, (now) => now.state === 'completed' || now.state === 'failed', 120_000)
    expect(done.state).toBe('completed')
    const resumed = await second.waitFor((entry) => entry.job_id === id && entry.msg === 'job resumed')
    expect(resumed.from_chunk).toBeGreaterThan(0)
    expect(second.lines.some((entry) => entry.job_id === id && entry.msg === 'job started')).toBe(false)

    oneShot = await engine.synthesize(request(TRANSCRIPT) as Parameters<Engine['synthesize']>[0])
    expect(oneShot.length).toBeGreaterThan(8000 * 2 * 3600)  // over an hour of speech
    const file = await readFile(jobs.files.pathOf(id))
    expect(file.length).toBe(oneShot.length)
    expect(file.equals(oneShot)).toBe(true)
    const heard = await streamed
    expect(heard.length).toBe(oneShot!.length)
    expect(heard.equals(oneShot)).toBe(true)
    const fetched = await fetch(`${api.base}/jobs/${id}/audio`, { headers: { 'x-api-key': KEY } })
    expect(Buffer.from(await fetched.arrayBuffer()).equals(oneShot)).toBe(true)

    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.progress.characters).toBeGreaterThanOrEqual(seen[i - 1]!.progress.characters)
      expect(seen[i]!.progress.audio_seconds).toBeGreaterThanOrEqual(seen[i - 1]!.progress.audio_seconds)
    }
    expect(done.progress).toEqual({ characters: TRANSCRIPT.length, total_characters: TRANSCRIPT.length, audio_seconds: oneShot!.length / 2 / 8000 })
    expect(done.expires_at).toBeDefined()
  }, 240_000)

  it('a cancel stops a running job: its progress stays, its audio is gone, and another key never sees it', async () => {
    if (!workers.some((worker) => worker.child.exitCode === null && worker.child.signalCode === null)) {
      const worker = startWorker(redis.url, dir)
      workers.push(worker)
      await worker.waitFor((entry) => entry.msg === 'ready')
    }
    const made = await post(api.base, '/jobs', request(TRANSCRIPT))
    expect(made.status).toBe(202)
    const { job_id: id } = (await made.json()) as JobStatus
    expect((await status(id, OTHER_KEY)).body.error_code).toBe('JOB_NOT_FOUND')
    const seen: JobStatus[] = []
    await watch(id, seen, (now) => now.progress.characters > 0, 60_000)
    const cancel = await fetch(`${api.base}/jobs/${id}`, { method: 'DELETE', headers: { 'x-api-key': KEY } })
    expect(cancel.status).toBe(200)
    expect(((await cancel.json()) as JobStatus).state).toBe('cancelled')
    const worker = workers[workers.length - 1]!
    await worker.waitFor((entry) => entry.job_id === id && entry.msg === 'job cancelled', 10_000)
    const stopped = (await status(id)).body
    await new Promise((resolve) => setTimeout(resolve, 500))
    const later = (await status(id)).body
    expect(later.state).toBe('cancelled')
    expect(later.progress).toEqual(stopped.progress)
    expect(later.progress.characters).toBeLessThan(TRANSCRIPT.length)
    expect(existsSync(jobs.files.pathOf(id))).toBe(false)
    const audio = await fetch(`${api.base}/jobs/${id}/audio`, { headers: { 'x-api-key': KEY } })
    expect(audio.status).toBe(404)
    expect(((await audio.json()) as { error_code: string }).error_code).toBe('JOB_NOT_FOUND')
  }, 120_000)

  it("the key's character limit applies to jobs: past it a job is refused, and nothing is queued", async () => {
    const refused = await post(api.base, '/jobs', request(TRANSCRIPT))
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { error_code: string }).error_code).toBe('USAGE_LIMIT_EXCEEDED')
    const tooLong = await post(api.base, '/jobs', request('word '.repeat(40_001)), { 'x-api-key': OTHER_KEY })
    expect(tooLong.status).toBe(400)
    expect(((await tooLong.json()) as { error_code: string }).error_code).toBe('TRANSCRIPT_TOO_LONG')
  })

  it('a browser token bound to a voice submits jobs with that voice only: another is refused with TOKEN_RESTRICTED when it is submitted', async () => {
    const minted = await post(api.base, '/tokens', { voice_id: voiceId('Sarah') }, { 'x-api-key': THIRD_KEY })
    const { token } = (await minted.json()) as { token: string }
    const submit = (voice: string) =>
      fetch(`${api.base}/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ ...request(SENTENCE), voice: { mode: 'id', id: voiceId(voice) } }) })
    const refused = await submit('Kal')
    expect([refused.status, await codeOf(refused)]).toEqual([403, 'TOKEN_RESTRICTED'])
    const accepted = await submit('Sarah')
    expect(accepted.status).toBe(202)
    const { job_id: id } = (await accepted.json()) as JobStatus
    const cancelled = await fetch(`${api.base}/jobs/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
    expect([cancelled.status, ((await cancelled.json()) as JobStatus).state]).toEqual([200, 'cancelled'])
  })

  it('a finished job and its audio expire after the time results are kept', async () => {
    const short = await JobService.start({ redisUrl: redis.url, engine, jobs: { dir, worker: false, resultTtlSeconds: 1 } })
    const replica = await start('standalone', { engine, keys: [OTHER_KEY], routes: jobRoutes(short) })
    try {
      const made = await post(replica.base, '/jobs', request('A short job.'), { 'x-api-key': OTHER_KEY })
      const { job_id: id } = (await made.json()) as JobStatus
      const deadline = Date.now() + 30_000
      let state = ''
      while (state !== 'completed' && Date.now() < deadline) {
        state = ((await (await fetch(`${replica.base}/jobs/${id}`, { headers: { 'x-api-key': OTHER_KEY } })).json()) as JobStatus).state
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(state).toBe('completed')
      expect(existsSync(short.files.pathOf(id))).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 2500))
      const gone = await fetch(`${replica.base}/jobs/${id}`, { headers: { 'x-api-key': OTHER_KEY } })
      expect(gone.status).toBe(404)
      expect(existsSync(short.files.pathOf(id))).toBe(false)
    } finally {
      await replica.close(1000)
      await short.close()
    }
  }, 60_000)

  it('a status read as its job completes shows the result, never an error', async () => {
    if (!workers.some((worker) => worker.child.exitCode === null && worker.child.signalCode === null)) {
      const worker = startWorker(redis.url, dir)
      workers.push(worker)
      await worker.waitFor((entry) => entry.msg === 'ready')
    }
    const replica = await start('standalone', { engine, keys: [OTHER_KEY], routes: jobRoutes(jobs) })
    try {
      for (let i = 0; i < 12; i++) {
        const text = `Short job number ${i + 1}.`
        const made = await post(replica.base, '/jobs', request(text), { 'x-api-key': OTHER_KEY })
        const { job_id: id } = (await made.json()) as JobStatus
        // Read without a pause, so that reads fall while the job completes.
        for (let state = ''; state !== 'completed'; ) {
          const response = await fetch(`${replica.base}/jobs/${id}`, { headers: { 'x-api-key': OTHER_KEY } })
          const body = (await response.json()) as JobStatus
          expect(response.status, JSON.stringify(body)).toBe(200)
          state = body.state
          if (state === 'completed') expect(body.progress.characters).toBe(text.length)
        }
      }
    } finally {
      await replica.close(1000)
    }
  }, 60_000)

  it("svc-tts serve --redis-url --jobs-dir runs jobs on its default engine: a job gives what one request gives, and a 20 000-word job, past one request's bounds, is taken and spoken", async () => {
    // Its worker alone takes jobs from the queue: replicas that share a queue share its directory too.
    await stopWorkers()
    const jobsDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-served-jobs-'))
    const server = await serveListening(jobsDir, 'standalone', { env: { SVC_TTS_API_KEYS: KEY }, args: ['--redis-url', redis.url, '--jobs-dir', path.join(jobsDir, 'jobs')] })
    const stateOf = async (id: string) => (await (await fetch(`${server.url}/jobs/${id}`, { headers: { 'x-api-key': KEY } })).json()) as JobStatus
    try {
      const text = `${SENTENCE} ${SENTENCE}`
      const made = await post(server.url, '/jobs', request(text))
      expect(made.status).toBe(202)
      const { job_id: id } = (await made.json()) as JobStatus
      const deadline = Date.now() + 30_000
      let state = ''
      while (state !== 'completed' && Date.now() < deadline) {
        state = (await stateOf(id)).state
        if (state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(state).toBe('completed')
      expect(server.lines.some((line) => line.includes('"job completed"') && line.includes(id))).toBe(true)
      const audio = Buffer.from(await (await fetch(`${server.url}/jobs/${id}/audio`, { headers: { 'x-api-key': KEY } })).arrayBuffer())
      const oneShot = Buffer.from(await (await post(server.url, '/text_to_speech', request(text))).arrayBuffer())
      expect(audio.length).toBeGreaterThan(8000)
      expect(audio.equals(oneShot)).toBe(true)

      // One request may not be this long (the engine's 100 000 characters and 30 minutes); a job may.
      expect(TRANSCRIPT.length).toBeGreaterThan(100_000)
      expect(await codeOf(await post(server.url, '/text_to_speech', request(TRANSCRIPT)))).toBe('TRANSCRIPT_TOO_LONG')
      const long = await post(server.url, '/jobs', request(TRANSCRIPT))
      expect(long.status).toBe(202)
      const { job_id: longId } = (await long.json()) as JobStatus
      const started = Date.now()
      let progress = await stateOf(longId)
      // Past the first 30 minutes of audio, the engine's bound for one request.
      while (progress.progress.audio_seconds < 1900 && progress.state !== 'failed' && Date.now() - started < 60_000) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        progress = await stateOf(longId)
      }
      expect(progress.state).not.toBe('failed')
      expect(progress.progress.audio_seconds).toBeGreaterThanOrEqual(1900)
      expect((await fetch(`${server.url}/jobs/${longId}`, { method: 'DELETE', headers: { 'x-api-key': KEY } })).status).toBeLessThan(300)
    } finally {
      expect(await server.stop(15_000)).toBe(0)
      await rm(jobsDir, { recursive: true, force: true })
    }
  }, 120_000)

  it('svc-tts serve --jobs-options and --jobs-worker: the limits and the worker they name hold', async () => {
    const jobsDir = await mkdtemp(path.join(tmpdir(), 'svc-tts-served-jobs-options-'))
    const server = await serveListening(jobsDir, 'standalone', {
      env: { SVC_TTS_API_KEYS: KEY },
      args: ['--redis-url', redis.url, '--jobs-dir', path.join(jobsDir, 'jobs'), '--jobs-options', `maxCharacters=${SENTENCE.length}`, '--jobs-worker', 'off'],
    })
    try {
      const tooLong = await post(server.url, '/jobs', request(`${SENTENCE} ${SENTENCE}`))
      expect([tooLong.status, await codeOf(tooLong)]).toEqual([400, 'TRANSCRIPT_TOO_LONG'])
      const made = await post(server.url, '/jobs', request(SENTENCE))
      expect(made.status).toBe(202)
      const { job_id: id } = (await made.json()) as JobStatus
      // No worker here, and none elsewhere: it stays queued.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect(((await (await fetch(`${server.url}/jobs/${id}`, { headers: { 'x-api-key': KEY } })).json()) as JobStatus).state).toBe('queued')
      expect((await fetch(`${server.url}/jobs/${id}`, { method: 'DELETE', headers: { 'x-api-key': KEY } })).status).toBeLessThan(300)
    } finally {
      expect(await server.stop(15_000)).toBe(0)
      await rm(jobsDir, { recursive: true, force: true })
    }
    const refused = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', 'serve', '--port', '0', '--redis-url', redis.url, '--jobs-dir', jobsDir, '--jobs-options', 'maxCharacters=0'], { cwd: root })
      let stderr = ''
      child.stderr.on('data', (data: Buffer) => (stderr += data.toString()))
      child.on('exit', (code) => resolve({ code, stderr }))
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^error INVALID_ARGUMENT: .*maxCharacters/)
  }, 60_000)

  it('a worker stopped by SIGTERM hands its running job back at its last commit, and another finishes it byte for byte', async () => {
    await stopWorkers()
    const leaving = startWorker(redis.url, dir)
    workers.push(leaving)
    await leaving.waitFor((entry) => entry.msg === 'ready')
    const made = await post(api.base, '/jobs', request(TRANSCRIPT), { 'x-api-key': OTHER_KEY })
    expect(made.status).toBe(202)
    const { job_id: id } = (await made.json()) as JobStatus
    const seen: JobStatus[] = []
    const statusOf = async () => ((await (await fetch(`${api.base}/jobs/${id}`, { headers: { 'x-api-key': OTHER_KEY } })).json()) as JobStatus)
    const deadline = Date.now() + 60_000
    while (((await statusOf()).progress.characters === 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
    leaving.child.kill('SIGTERM')
    await new Promise<void>((resolve) => leaving.child.once('exit', () => resolve()))
    expect(leaving.child.exitCode).toBe(0)
    const handedBack = await statusOf()
    seen.push(handedBack)
    expect(handedBack.state).toBe('queued')
    expect(handedBack.progress.characters).toBeGreaterThan(0)
    expect(handedBack.progress.characters).toBeLessThan(TRANSCRIPT.length)

    const taking = startWorker(redis.url, dir)
    workers.push(taking)
    const resumed = await taking.waitFor((entry) => entry.job_id === id && entry.msg === 'job resumed', 60_000)
    expect(resumed.from_chunk).toBeGreaterThan(0)
    const finishBy = Date.now() + 120_000
    let finished = await statusOf()
    while (finished.state !== 'completed' && finished.state !== 'failed' && Date.now() < finishBy) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      finished = await statusOf()
    }
    expect(finished.state).toBe('completed')
    oneShot ??= await engine.synthesize(request(TRANSCRIPT) as Parameters<Engine['synthesize']>[0])
    expect((await readFile(jobs.files.pathOf(id))).equals(oneShot)).toBe(true)
  }, 240_000)

  it('compressed jobs: mp3 and flac give the bytes of one synthesis of their request, ogg an Ogg stream, each read while made and after', async () => {
    const text = Array.from({ length: 30 }, () => SENTENCE).join(' ')
    const formats = [
      { container: 'mp3', encoding: 'pcm_s16le', sample_rate: 22050, bit_rate: 64000 },
      { container: 'flac', encoding: 'pcm_s16le', sample_rate: 16000 },
      { container: 'ogg', encoding: 'pcm_s16le', sample_rate: 24000, bit_rate: 32000 },
    ]
    for (const output_format of formats) {
      const body = { ...request(text), output_format }
      const made = await post(api.base, '/jobs', body, { 'x-api-key': OTHER_KEY })
      expect(made.status).toBe(202)
      const { job_id: id } = (await made.json()) as JobStatus
      const whileMade = fetch(`${api.base}/jobs/${id}/audio`, { headers: { 'x-api-key': OTHER_KEY } }).then(async (response) => Buffer.from(await response.arrayBuffer()))
      const deadline = Date.now() + 60_000
      let state = ''
      while (state !== 'completed' && state !== 'failed' && Date.now() < deadline) {
        state = ((await (await fetch(`${api.base}/jobs/${id}`, { headers: { 'x-api-key': OTHER_KEY } })).json()) as JobStatus).state
        if (state !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(state).toBe('completed')
      const after = await fetch(`${api.base}/jobs/${id}/audio`, { headers: { 'x-api-key': OTHER_KEY } })
      expect(after.headers.get('content-type')).toBe({ mp3: 'audio/mpeg', flac: 'audio/flac', ogg: 'audio/ogg; codecs=opus' }[output_format.container])
      const read = Buffer.from(await after.arrayBuffer())
      const streamed = await whileMade
      if (output_format.container === 'ogg') {
        // The engine's own Ogg Opus output differs from run to run: only its framing is compared.
        expect(read.subarray(0, 4).toString('ascii')).toBe('OggS')
        expect(streamed.subarray(0, 4).toString('ascii')).toBe('OggS')
        expect(read.length).toBeGreaterThan(10_000)
        continue
      }
      const one = await engine.synthesize(body as Parameters<Engine['synthesize']>[0])
      expect(read.equals(one), output_format.container).toBe(true)
      // Read while it was made, a FLAC's header could not yet say its length: the rest is the same.
      if (output_format.container === 'flac') expect(streamed.subarray(42).equals(one.subarray(42))).toBe(true)
      else expect(streamed.equals(one)).toBe(true)
    }
  }, 120_000)

  it('Redis hung mid-job: the routes answer 503 within the command timeout, and the job still ends byte for byte once Redis answers again', async () => {
    if (!workers.some((worker) => worker.child.exitCode === null && worker.child.signalCode === null)) {
      const worker = startWorker(redis.url, dir)
      workers.push(worker)
      await worker.waitFor((entry) => entry.msg === 'ready')
    }
    const made = await post(api.base, '/jobs', request(TRANSCRIPT), { 'x-api-key': THIRD_KEY })
    expect(made.status).toBe(202)
    const { job_id: id } = (await made.json()) as JobStatus
    const statusOf = async () => fetch(`${api.base}/jobs/${id}`, { headers: { 'x-api-key': THIRD_KEY } })
    const deadline = Date.now() + 60_000
    while ((((await (await statusOf()).json()) as JobStatus).progress.characters === 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
    redis.pause()
    try {
      const asked = Date.now()
      const hung = await statusOf()
      expect(Date.now() - asked).toBeLessThan(3500)
      expect(hung.status).toBe(503)
      expect(((await hung.json()) as { error_code: string }).error_code).toBe('STORE_UNAVAILABLE')
      // Longer than the worker's lock: it may lose the job, which is then taken up again from its last commit.
      await new Promise((resolve) => setTimeout(resolve, LOCK_MS * 2))
    } finally {
      redis.resume()
    }
    const finishBy = Date.now() + 120_000
    let finished: JobStatus | undefined
    while (Date.now() < finishBy) {
      const response = await statusOf()
      if (response.status === 200) {
        finished = (await response.json()) as JobStatus
        if (finished.state === 'completed' || finished.state === 'failed') break
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(finished?.state).toBe('completed')
    oneShot ??= await engine.synthesize(request(TRANSCRIPT) as Parameters<Engine['synthesize']>[0])
    expect((await readFile(jobs.files.pathOf(id))).equals(oneShot)).toBe(true)
  }, 240_000)

  it("a running job holds a concurrency slot of its key: with a limit of 1, the key's second job waits for its first", async () => {
    await stopWorkers()
    const worker = startWorker(redis.url, dir, ['2', '1'])
    workers.push(worker)
    await worker.waitFor((entry) => entry.msg === 'ready')
    const text = TRANSCRIPT.slice(0, 22_000)
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const made = await post(api.base, '/jobs', request(text), { 'x-api-key': THIRD_KEY })
      expect(made.status).toBe(202)
      ids.push(((await made.json()) as JobStatus).job_id)
    }
    const ended = await Promise.all(ids.map((id) => worker.waitFor((entry) => entry.job_id === id && entry.msg === 'job completed', 120_000)))
    const at = (entry: Record<string, unknown>) => worker.lines.indexOf(entry)
    const started = ids.map((id) => worker.lines.find((entry) => entry.job_id === id && entry.msg === 'job started')!)
    const [first, second] = at(started[0]!) < at(started[1]!) ? [0, 1] : [1, 0]
    // The second started only after the first ended, and was delayed before.
    expect(at(started[second]!)).toBeGreaterThan(at(ended[first]!))
    expect(worker.lines.some((entry) => entry.job_id === ids[second] && entry.msg === 'job delayed' && entry.reason === 'TOO_MANY_CONCURRENT_REQUESTS')).toBe(true)
    expect(worker.lines.some((entry) => entry.job_id === ids[first] && entry.msg === 'job delayed')).toBe(false)
  }, 180_000)

  it('Redis gone: the jobs routes answer 503 STORE_UNAVAILABLE at once, and serve again once it is back', async () => {
    await redis.kill()
    try {
      const asked = Date.now()
      const refused = await post(api.base, '/jobs', request('While Redis is away.'), { 'x-api-key': OTHER_KEY })
      expect(Date.now() - asked).toBeLessThan(2500)
      expect(refused.status).toBe(503)
      expect(((await refused.json()) as { error_code: string }).error_code).toBe('STORE_UNAVAILABLE')
      const lookup = await fetch(`${api.base}/jobs/some-job`, { headers: { 'x-api-key': OTHER_KEY } })
      expect(lookup.status).toBe(503)
      expect((await fetch(`${api.base}/`, { headers: { version: 'v1' } })).status).toBe(200)
    } finally {
      await redis.start()
    }
    const back = Date.now()
    let status = 0
    while (status !== 202 && Date.now() - back < 10_000) {
      status = (await post(api.base, '/jobs', request('Redis is back.'), { 'x-api-key': OTHER_KEY })).status
      if (status !== 202) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(status).toBe(202)
  }, 30_000)
})
