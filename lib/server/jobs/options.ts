/** What the long-form jobs are made with: one schema, its defaults. */
import * as z from 'zod'
import { strictObject } from '../../validation/parse.js'

export const jobsOptionsSchema = strictObject({
  /** Where results are written: a directory every replica mounts (docs/server.md#jobs). */
  dir: z.string().min(1),
  /** Longest transcript a job takes, in UTF-16 characters (in place of the engine's maxTranscriptChars, which bounds one request). */
  maxCharacters: z.number().int().min(1).default(200_000),
  /** Longest audio a job makes, in seconds (in place of the engine's maxAudioSeconds): 12 hours, a long book's chapter set. */
  maxAudioSeconds: z.number().positive().default(43_200),
  /** How long a finished job and its audio are kept. */
  resultTtlSeconds: z.number().positive().default(86_400),
  /** Whether this replica runs jobs (every replica takes requests either way). */
  worker: z.boolean().default(true),
  /** Jobs this replica runs at once. */
  concurrency: z.number().int().min(1).max(64).default(1),
  /** Tries of a job that failed (a worker that died does not count: its job is taken up again). */
  attempts: z.number().int().min(1).default(3),
  /** How long a worker's hold on a job outlives it: a job of a killed worker is taken up again after about this. */
  lockMs: z.number().int().min(500).default(30_000),
  /** Prefix of every Redis key of the queue (replicas that share jobs share it). */
  prefix: z.string().min(1).default('svc-tts'),
})
export type JobsOptions = z.input<typeof jobsOptionsSchema>
export type ParsedJobsOptions = z.output<typeof jobsOptionsSchema>
