/**
 * Long-form jobs on a BullMQ queue in the replicas' shared Redis: any replica takes a job, any
 * replica's worker runs it, its audio goes to the shared directory (JobFiles). A job is its key's
 * alone: another key is told it does not exist. Cancelling is a flag in Redis the running worker
 * looks at each time it commits (every 100 ms); a queued job sees it when a worker takes it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import type { Job, Queue, Worker } from 'bullmq'
import type { Redis } from 'ioredis'
import { CONTENT_TYPES, isCompressed, setFlacTotalSamples, wavHeader, type CompressedContainer, type OutputFormat } from '../../audio/format.js'
import { createEncoder } from '../../engine/encoded-session.js'
import { fromNativeError, loadNative } from '../../native.js'
import type { Engine } from '../../engine/engine.js'
import { formatIn, type ParsedSynthesisRequest } from '../../engine/requests.js'
import { TtsError, type ErrorCode } from '../../errors.js'
import { parseWith } from '../../validation/parse.js'
import type { Limiter } from '../limits.js'
import { clientOptions, closeRedis, connectRedis, loadPeer, unavailable } from '../redis/connection.js'
import { JobFiles } from './job-files.js'
import { jobsOptionsSchema, type JobsOptions, type ParsedJobsOptions } from './options.js'
import { doneOf, pcmOf, synthesizeJob, type Done, type JobData } from './synthesis.js'

const QUEUE_NAME = 'jobs'
/** The failure a cancelled job ends with. */
const CANCELLED = 'cancelled'
/** How often a reader of a running job's audio looks for more. */
const FOLLOW_INTERVAL_MS = 100

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled'

export interface JobStatus {
  job_id: string
  state: JobState
  progress: { characters: number; total_characters: number; audio_seconds: number }
  created_at: string
  finished_at?: string
  /** When a finished job and its audio are removed. */
  expires_at?: string
  error?: { error_code: string; message: string }
}

export interface JobServiceOptions {
  redisUrl: string
  /** The engine the worker speaks with (the service's, or its promise while it loads). */
  engine: Engine<string> | Promise<Engine<string>>
  jobs: JobsOptions
  onWarning?: (message: string) => void
  /** Told when this replica's worker starts, resumes or ends a job. */
  log?: (entry: Record<string, unknown>) => void
  /** The keys' limits (the replicas' shared one): a running job holds a concurrency slot of its key. */
  limiter?: Limiter
}

/** The BullMQ errors a processor throws to say where its job goes instead of completing. */
interface Outcomes {
  Unrecoverable: new (message: string) => Error
  Waiting: new () => Error
  Delayed: new () => Error
}

type QueuedJob = Job<JobData, Done>

function errorOf(error: unknown): { error_code: string; message: string } {
  return error instanceof TtsError ? { error_code: error.code, message: error.message } : { error_code: 'INTERNAL_ERROR', message: 'the job failed' }
}

function parseFailure(reason: string | undefined): { error_code: string; message: string } {
  try {
    const parsed = JSON.parse(reason ?? '') as { error_code?: unknown; message?: unknown }
    if (typeof parsed.error_code === 'string' && typeof parsed.message === 'string') return { error_code: parsed.error_code, message: parsed.message }
  } catch {
    // a reason BullMQ wrote itself (a job stalled too often)
  }
  return { error_code: 'INTERNAL_ERROR', message: reason ?? 'the job failed' }
}

/**
 * PCM through a native encoder. `totalSamples`, when known, goes into a FLAC header, as one
 * synthesis of the whole file writes it.
 */
async function* encoded(pcm: AsyncIterable<Buffer>, format: OutputFormat & { container: CompressedContainer }, totalSamples: number | undefined): AsyncGenerator<Buffer> {
  const encoder = createEncoder(loadNative(), format)
  let header = format.container === 'flac' ? totalSamples : undefined
  const run = async (call: Promise<Buffer>) => {
    const bytes = await call.catch((cause: unknown) => {
      throw fromNativeError(cause, 'encoding failed')
    })
    if (header === undefined || bytes.length === 0) return bytes
    const patched = setFlacTotalSamples(bytes, header)
    header = undefined
    return patched
  }
  for await (const piece of pcm) {
    const bytes = await run(encoder.encode(piece))
    if (bytes.length > 0) yield bytes
  }
  const tail = await run(encoder.finish())
  if (tail.length > 0) yield tail
}

export class JobService {
  readonly options: ParsedJobsOptions
  readonly files: JobFiles
  private readonly closing = new AbortController()
  private readonly sweeper: NodeJS.Timeout

  private constructor(
    private readonly queue: Queue<JobData, Done>,
    private readonly worker: { worker: Worker<JobData, Done>; connection: Redis } | undefined,
    private readonly client: Redis,
    private readonly engine: Promise<Engine<string>>,
    options: ParsedJobsOptions,
    private readonly log: ((entry: Record<string, unknown>) => void) | undefined,
    private readonly limiter: Limiter | undefined,
  ) {
    this.options = options
    this.files = new JobFiles(options.dir)
    const sweepMs = Math.min(60_000, Math.max(250, (options.resultTtlSeconds * 1000) / 2))
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), sweepMs)
    this.sweeper.unref()
  }

  /** The queue (and this replica's worker, unless `jobs.worker` is false) on the shared Redis. */
  static async start({ redisUrl, engine, jobs, onWarning, log, limiter }: JobServiceOptions): Promise<JobService> {
    const options = parseWith(jobsOptionsSchema, jobs, 'jobs options')
    const [{ Queue, Worker, UnrecoverableError, WaitingError, DelayedError }, { Redis }] = await loadPeer('bullmq ioredis', 'Jobs', () => Promise.all([import('bullmq'), import('ioredis')]))
    await new JobFiles(options.dir).ensure()
    const client = await connectRedis({ url: redisUrl, ...(onWarning && { onWarning }) })
    const queue = new Queue<JobData, Done>(QUEUE_NAME, { connection: client, prefix: options.prefix })
    queue.on('error', () => {})  // the client's own warning says Redis is gone
    let service: JobService | undefined
    let running: { worker: Worker<JobData, Done>; connection: Redis } | undefined
    if (options.worker) {
      // A worker blocks on Redis waiting for jobs: a connection of its own that queues while Redis is away.
      const connection = new Redis(redisUrl, { ...clientOptions(), enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined })
      connection.on('error', () => {})  // the replica's other client warns that Redis is gone
      const worker = new Worker<JobData, Done>(QUEUE_NAME, (job, token, lost) => service!.run(job, token, lost, { Unrecoverable: UnrecoverableError, Waiting: WaitingError, Delayed: DelayedError }), {
        connection,
        prefix: options.prefix,
        concurrency: options.concurrency,
        lockDuration: options.lockMs,
        stalledInterval: Math.max(250, Math.floor(options.lockMs / 2)),
        // A worker that dies does not use up a try: its job is taken up again as often as that happens.
        maxStalledCount: Number.MAX_SAFE_INTEGER,
        autorun: false,
      })
      worker.on('error', () => {})  // reconnecting: told by the clients' warnings
      // A job whose lock could not be renewed may be another worker's by now: stop writing it.
      worker.on('lockRenewalFailed', (ids) => {
        for (const id of ids) worker.cancelJob(id, 'lost its lock')
      })
      running = { worker, connection }
    }
    service = new JobService(queue, running, client, Promise.resolve(engine), options, log, limiter)
    void running?.worker.run().catch(() => {})
    return service
  }

  /** Queues a job of `keyId`; its status. */
  async submit(keyId: string, request: ParsedSynthesisRequest): Promise<JobStatus> {
    const id = randomUUID()
    const format = formatIn(request.output_format, 'wav')
    const age = this.options.resultTtlSeconds
    const job = await this.queue
      .add(QUEUE_NAME, { keyId, request, format }, {
        jobId: id,
        attempts: this.options.attempts,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age },
        removeOnFail: { age },
      })
      .catch((cause: unknown) => {
        throw unavailable(cause)
      })
    return this.statusOf(job as QueuedJob, 'queued', false)
  }

  async status(keyId: string, id: string): Promise<JobStatus> {
    const { job, state } = await this.ownedInState(keyId, id)
    return this.statusOf(job, state, await this.cancelled(id))
  }

  /** Cancels a queued or running job (a finished one is left as it is); its status then. */
  async cancel(keyId: string, id: string): Promise<JobStatus> {
    const { job, state } = await this.ownedInState(keyId, id)
    if (state === 'queued' || state === 'running') {
      await this.client.set(this.cancelKey(id), '1', 'EX', Math.ceil(this.options.resultTtlSeconds)).catch((cause: unknown) => {
        throw unavailable(cause)
      })
      return this.statusOf(job, 'cancelled', true)
    }
    return this.statusOf(job, state, await this.cancelled(id))
  }

  /** The job's audio container and content type. */
  async contentType(keyId: string, id: string): Promise<string> {
    return CONTENT_TYPES[(await this.owned(keyId, id)).data.format.container]
  }

  /**
   * The job's audio, from its start, as it is made: what its worker has committed, until it is
   * complete. A WAV's header says its length (a FLAC's its samples) when the job was complete at
   * the start of the read, else it is a streaming one. A compressed container is encoded as it is
   * read, by an encoder of the read's own.
   */
  async *audio(keyId: string, id: string, signal: AbortSignal): AsyncGenerator<Buffer> {
    const { job, state } = await this.ownedInState(keyId, id)
    const { format } = job.data
    const complete = state === 'completed' ? job.returnvalue : undefined
    const pcm = this.pcm(keyId, job, signal)
    if (isCompressed(format)) {
      yield* encoded(pcm, format, complete?.samples)
      return
    }
    if (format.container === 'wav') yield wavHeader(format, complete?.bytes)
    yield* pcm
  }

  /** The job's PCM as its worker commits it, until it is complete. */
  private async *pcm(keyId: string, job: QueuedJob, signal: AbortSignal): AsyncGenerator<Buffer> {
    const id = job.id!
    let position = 0
    for (;;) {
      const { state, committed } = await this.committed(id)
      if (state === 'failed' || state === 'unknown') {
        const failed = await this.owned(keyId, id)
        throw this.failureOf(failed, await this.stateOf(failed))
      }
      for await (const piece of this.files.read(id, position, committed)) {
        position += piece.length
        yield piece
      }
      if (state === 'completed') {
        if (position < committed) throw new TtsError('IO_FAILED', 'the job\'s audio file is shorter than the job made it')
        return
      }
      await sleep(FOLLOW_INTERVAL_MS, undefined, { signal })
    }
  }

  /**
   * The job's queue state and the bytes of its file that are its own, read without its data (the
   * transcript). The state first: a job seen completed has its result written, where a result read
   * beside the state could predate a completion the state shows, and end the audio short.
   */
  private async committed(id: string): Promise<{ state: string; committed: number }> {
    try {
      const state = await this.queue.getJobState(id)
      const [progress, returned] = await this.client.hmget(this.queue.toKey(id), 'progress', 'returnvalue')
      const parse = (field: string | null | undefined) => (field == null ? undefined : (JSON.parse(field) as unknown))
      return { state, committed: doneOf(state === 'completed' ? parse(returned) : parse(progress)).bytes }
    } catch (cause) {
      throw unavailable(cause)
    }
  }

  /** Stops this replica's worker: a job it runs goes back to the queue at its last commit, for any worker. */
  async close(): Promise<void> {
    clearInterval(this.sweeper)
    this.closing.abort(new TtsError('SERVER_CLOSING', 'the server shut down'))
    await this.worker?.worker.close().catch(() => {})
    if (this.worker) await closeRedis(this.worker.connection)
    await this.queue.close().catch(() => {})
    await closeRedis(this.client)
  }

  /** The worker's processor: one job, from what it has done (its file cut there) to its end. */
  private async run(job: QueuedJob, token: string | undefined, lost: AbortSignal | undefined, outcomes: Outcomes): Promise<Done> {
    const id = job.id!
    if (await this.cancelled(id).catch(() => false)) throw new outcomes.Unrecoverable(CANCELLED)
    const release = await this.slot(job, token, outcomes)
    try {
      return await this.synthesize(job, token, lost, outcomes)
    } finally {
      release?.()
    }
  }

  /** A concurrency slot of the job's key; a job whose key has none free waits (delayed) until one is expected to free. */
  private async slot(job: QueuedJob, token: string | undefined, { Delayed }: Outcomes): Promise<(() => void) | undefined> {
    if (!this.limiter) return undefined
    try {
      return await this.limiter.acquire(job.data.keyId)
    } catch (error) {
      const seconds = error instanceof TtsError ? Number(error.extra?.retry_after_seconds ?? 1) : 1
      this.log?.({ msg: 'job delayed', job_id: job.id, reason: error instanceof TtsError ? error.code : 'INTERNAL_ERROR', seconds })
      await job.moveToDelayed(Date.now() + seconds * 1000, token)
      throw new Delayed()
    }
  }

  private async synthesize(job: QueuedJob, token: string | undefined, lost: AbortSignal | undefined, { Unrecoverable, Waiting }: Outcomes): Promise<Done> {
    const id = job.id!
    const done = doneOf(job.progress)
    this.log?.({ msg: done.chunks > 0 ? 'job resumed' : 'job started', job_id: id, from_chunk: done.chunks, from_bytes: done.bytes })
    let finished: Done | undefined
    try {
      finished = await synthesizeJob({
        id,
        data: job.data,
        done,
        engine: await this.engine,
        files: this.files,
        bounds: { maxTranscriptChars: this.options.maxCharacters, maxAudioSeconds: this.options.maxAudioSeconds },
        signal: lost ? AbortSignal.any([this.closing.signal, lost]) : this.closing.signal,
        commit: async (now) => {
          // Waits on the worker's connection while Redis is away; the cancel flag is read again at the next commit.
          await job.updateProgress(now as unknown as object)
          return this.cancelled(id).catch(() => false)
        },
      })
    } catch (error) {
      if (this.closing.signal.aborted) {
        await job.moveToWait(token)
        throw new Waiting()
      }
      // Taken up again, by whichever worker holds it next, from its last commit.
      if (lost?.aborted) throw new Error(JSON.stringify({ error_code: 'STORE_UNAVAILABLE', message: 'the worker lost its hold on the job' }))
      // A request the engine refuses fails the same way on every try.
      if (error instanceof TtsError && error.status < 500) throw new Unrecoverable(JSON.stringify(errorOf(error)))
      throw new Error(JSON.stringify(errorOf(error)))
    }
    if (!finished) {
      await this.files.remove(id)
      this.log?.({ msg: 'job cancelled', job_id: id })
      throw new Unrecoverable(CANCELLED)
    }
    this.log?.({ msg: 'job completed', job_id: id, bytes: finished.bytes })
    return finished
  }

  private cancelKey(id: string): string {
    return `${this.options.prefix}:jobs:cancelled:${id}`
  }

  private async cancelled(id: string): Promise<boolean> {
    return (await this.client.exists(this.cancelKey(id)).catch((cause: unknown) => {
      throw unavailable(cause)
    })) === 1
  }

  /** The job when it is `keyId`'s and not expired, else JOB_NOT_FOUND. */
  private async owned(keyId: string, id: string): Promise<QueuedJob> {
    const job = (await this.queue.getJob(id).catch((cause: unknown) => {
      throw unavailable(cause)
    })) as QueuedJob | undefined
    const expired = job?.finishedOn !== undefined && job.finishedOn + this.options.resultTtlSeconds * 1000 <= Date.now()
    if (!job || job.data.keyId !== keyId || expired) throw new TtsError('JOB_NOT_FOUND', `no job ${id} of this key (a finished job is kept ${this.options.resultTtlSeconds} s)`)
    return job
  }

  /**
   * The job and its state. The two are read one after the other: a job that completed between them
   * is read again, so that its result is there to show.
   */
  private async ownedInState(keyId: string, id: string): Promise<{ job: QueuedJob; state: JobState }> {
    const job = await this.owned(keyId, id)
    const state = await this.stateOf(job)
    if (state === 'completed' && job.returnvalue == null) return { job: await this.owned(keyId, id), state }
    return { job, state }
  }

  private async stateOf(job: QueuedJob): Promise<JobState> {
    const state = await job.getState().catch((cause: unknown) => {
      throw unavailable(cause)
    })
    if (state === 'completed') return 'completed'
    if (state === 'failed') return job.failedReason === CANCELLED ? 'cancelled' : 'failed'
    return state === 'active' ? 'running' : 'queued'
  }

  private failureOf(job: QueuedJob, state: JobState): TtsError {
    if (state === 'cancelled') return new TtsError('JOB_NOT_FOUND', `job ${job.id} was cancelled`)
    if (state !== 'failed') return new TtsError('JOB_NOT_FOUND', `job ${job.id} is gone`)
    const { error_code, message } = parseFailure(job.failedReason)
    return new TtsError(error_code as ErrorCode, message)
  }

  private statusOf(job: QueuedJob, state: JobState, cancelled: boolean): JobStatus {
    const shown: JobState = cancelled && state !== 'completed' ? 'cancelled' : state
    const done = state === 'completed' ? job.returnvalue : doneOf(job.progress)
    const audioSeconds = done.samples / pcmOf(job.data.format).sample_rate
    return {
      job_id: job.id!,
      state: shown,
      progress: { characters: done.characters, total_characters: job.data.request.transcript.length, audio_seconds: Math.round(audioSeconds * 1000) / 1000 },
      created_at: new Date(job.timestamp).toISOString(),
      ...(job.finishedOn !== undefined && {
        finished_at: new Date(job.finishedOn).toISOString(),
        expires_at: new Date(job.finishedOn + this.options.resultTtlSeconds * 1000).toISOString(),
      }),
      ...(shown === 'failed' && { error: parseFailure(job.failedReason) }),
    }
  }

  /** Removes the audio of jobs finished longer ago than the results are kept (their records expire in Redis). */
  private async sweep(): Promise<void> {
    const before = Date.now() - this.options.resultTtlSeconds * 1000
    for (const id of await this.files.writtenBefore(before)) {
      const job = (await this.queue.getJob(id)) as QueuedJob | undefined
      if (job && (await job.getState()) === 'active') continue
      await this.files.remove(id)
    }
  }
}
