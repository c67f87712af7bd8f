/**
 * The fuzz runner: splits COUNT seeded inputs into batches, runs each batch in a child process
 * (batch.ts) with a deadline, and collects every failure: a signal, a hang (the deadline passed;
 * the input that was running is named), an event-loop stall over 200 ms, a non-TtsError, or a
 * bad result. `npm run fuzz -- --seed 7 --count 20000` (or FUZZ_SEED / FUZZ_COUNT) runs more.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runNodeWithDeadline } from '../../helpers/deadline-child.js'
import { fuzzInput } from './inputs.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, '../../..')

export interface FuzzOptions {
  seed: number
  count: number
  /** Inputs per child process. */
  batchSize?: number
  /** Child processes at once. */
  concurrency?: number
  /** The deadline of a batch is this times its size, plus the process start. */
  msPerInput?: number
}

export interface FuzzFailure {
  index: number | null
  why: string
  transcript?: string
}

export interface FuzzResult {
  ran: number
  failures: FuzzFailure[]
  ms: number
}

function describe(seed: number, index: number | null, why: string): FuzzFailure {
  if (index === null) return { index, why }
  const input = fuzzInput(seed, index)
  return { index, why: `${why} [${input.call} on ${input.request.model_id}]`, transcript: JSON.stringify(input.request.transcript).slice(0, 300) }
}

async function runBatch(seed: number, from: number, count: number, deadlineMs: number): Promise<{ ran: number; failures: FuzzFailure[] }> {
  const { stdout, stderr, status, signal, timedOut } = await runNodeWithDeadline(
    ['--import', 'tsx', path.join(here, 'batch.ts'), String(seed), String(from), String(count)],
    { cwd: root, deadlineMs },
  )
  const failures: FuzzFailure[] = []
  let running: number | null = null
  let ran = 0
  let ended = false
  for (const line of stdout.split('\n')) {
    const [kind, index, ...rest] = line.split(' ')
    if (kind === 'START') running = Number(index)
    if (kind === 'OK' || kind === 'FAIL' || kind === 'STALL') {
      ran++
      running = null
    }
    if (kind === 'FAIL') failures.push(describe(seed, Number(index), rest.join(' ')))
    if (kind === 'STALL') failures.push(describe(seed, Number(index), `event loop stalled ${rest[0]} ms in each of 3 runs`))
    if (kind === 'END') ended = true
  }
  if (timedOut) failures.push(describe(seed, running, `hang: batch ${from}+${count} passed its ${deadlineMs} ms deadline`))
  else if (signal || status !== 0 || !ended) {
    failures.push(describe(seed, running, `child died (signal ${signal}, status ${status}): ${stderr.slice(-800)}`))
  }
  return { ran, failures }
}

export async function runFuzz({ seed, count, batchSize = 250, concurrency = 2, msPerInput = 400 }: FuzzOptions): Promise<FuzzResult> {
  const started = performance.now()
  const batches: [number, number][] = []
  for (let from = 0; from < count; from += batchSize) batches.push([from, Math.min(batchSize, count - from)])
  const failures: FuzzFailure[] = []
  let ran = 0
  const workers = Array.from({ length: concurrency }, async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      const result = await runBatch(seed, batch[0], batch[1], 20_000 + batch[1] * msPerInput)
      ran += result.ran
      failures.push(...result.failures)
    }
  })
  await Promise.all(workers)
  return { ran, failures, ms: performance.now() - started }
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : undefined
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const seed = Number(argument('seed') ?? process.env.FUZZ_SEED ?? Date.now() % 1_000_000)
  const count = Number(argument('count') ?? process.env.FUZZ_COUNT ?? 10_000)
  console.log(`fuzz: seed ${seed}, ${count} inputs`)
  const result = await runFuzz({ seed, count })
  for (const failure of result.failures) console.log(`input ${failure.index}: ${failure.why}\n  transcript ${failure.transcript ?? '?'}`)
  console.log(`fuzz: ${result.ran} of ${count} inputs ran in ${(result.ms / 1000).toFixed(1)} s, ${result.failures.length} failures (seed ${seed})`)
  process.exit(result.failures.length === 0 && result.ran === count ? 0 : 1)
}
