/**
 * Word error rate of the speech, ours against the command-line program's, as a speech recogniser
 * hears it: pocketsphinx (Debian `pocketsphinx`, `pocketsphinx-en-us`; scripts/install-system-deps.sh)
 * decodes each Harvard sentence spoken by the library and by the CLI, written to a file the way a
 * user runs it (`flite -o file`, `espeak-ng -w file`). Both are made at the backend's own rate and
 * brought to 16 kHz by the same sox command, so the recogniser hears the synthesis, not two resamplers.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { wavHeader, type Engine } from '../../lib/index.js'
import { requestFor, type Subject } from './subjects.js'

const run = promisify(execFile)
const MODEL = '/usr/share/pocketsphinx/model/en-us'
const DECODES_AT_ONCE = 4

function words(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z' ]+/g, ' ').split(/\s+/).filter(Boolean)
}

/** Word-level edit distance. */
function editDistance(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j)
  for (let i = 1; i <= reference.length; i++) {
    const current = [i]
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1)
      current.push(Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1))
    }
    previous = current
  }
  return previous[hypothesis.length]!
}

async function recognise(wav16k: string): Promise<string> {
  const { stdout } = await run('pocketsphinx_continuous', [
    '-infile', wav16k, '-hmm', `${MODEL}/en-us`, '-lm', `${MODEL}/en-us.lm.bin`, '-dict', `${MODEL}/cmudict-en-us.dict`, '-logfn', '/dev/null',
  ])
  return stdout.trim()
}

async function to16k(input: string, output: string): Promise<void> {
  // -D: no dither, whose noise sox draws afresh each run; with it the same audio was heard differently.
  await run('sox', ['-D', input, '-r', '16000', '-c', '1', '-b', '16', output])
}

export interface WerResult {
  subject: Subject
  oursPercent: number
  cliPercent: number
  sentences: number
}

/** WER in percent over `sentences`, for the library and for the subject's CLI. */
export async function measureWer(engine: Engine, subject: Subject, sentences: readonly string[]): Promise<WerResult> {
  if (!subject.cli) throw new Error(`${subject.id} has no CLI to compare with`)
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-tts-wer-'))
  let reference = 0
  let oursErrors = 0
  let cliErrors = 0
  try {
    const pairs: { expected: string[]; ours: string; cli: string }[] = []
    for (const [index, sentence] of sentences.entries()) {
      const format = { encoding: 'pcm_s16le' as const, sample_rate: subject.sampleRate }
      const pcm = await engine.synthesize({ ...requestFor(subject, sentence), output_format: { container: 'raw' as const, ...format } })
      const oursRaw = path.join(dir, `ours-raw-${index}.wav`)
      const ours = path.join(dir, `ours-${index}.wav`)
      await writeFile(oursRaw, Buffer.concat([wavHeader(format, pcm.length), pcm]))
      await to16k(oursRaw, ours)
      const cliRaw = path.join(dir, `cli-raw-${index}.wav`)
      const cli = path.join(dir, `cli-${index}.wav`)
      await run(subject.cli.command, subject.cli.args(sentence, cliRaw))
      await to16k(cliRaw, cli)
      pairs.push({ expected: words(sentence), ours, cli })
    }
    // The recogniser is the slow part: a few decodes at a time.
    for (let from = 0; from < pairs.length; from += DECODES_AT_ONCE) {
      await Promise.all(
        pairs.slice(from, from + DECODES_AT_ONCE).map(async ({ expected, ours, cli }) => {
          reference += expected.length
          // Both awaited before adding: `total += await x` reads the total before it waits, and
          // decodes running at once would then overwrite each other's counts.
          const [heardOurs, heardCli] = [await recognise(ours), await recognise(cli)]
          oursErrors += editDistance(expected, words(heardOurs))
          cliErrors += editDistance(expected, words(heardCli))
        }),
      )
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return { subject, oursPercent: (100 * oursErrors) / reference, cliPercent: (100 * cliErrors) / reference, sentences: sentences.length }
}
