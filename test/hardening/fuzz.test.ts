/**
 * The standing guard of issue 7: seeded random requests (markup, every script, punctuation runs,
 * long tokens, breaks; every model, language, voice and format) run in child processes with a
 * deadline. Fails on a signal, a hang, an event-loop stall over 200 ms, a non-TtsError or a bad
 * result, naming the input. FUZZ_SEED and FUZZ_COUNT change the run; `npm run fuzz` runs more.
 */
import { describe, expect, it } from 'vitest'
import { runFuzz } from './fuzz/run.js'

const seed = Number(process.env.FUZZ_SEED ?? 20261123)
const count = Number(process.env.FUZZ_COUNT ?? 2000)

describe('fuzz', () => {
  it(`${count} seeded requests (seed ${seed}) end in audio or a TtsError, without a crash, hang or stall`, async () => {
    const result = await runFuzz({ seed, count })
    expect(result.failures).toEqual([])
    expect(result.ran).toBe(count)
  }, 600_000)
})
