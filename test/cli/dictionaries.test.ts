/** `svc-tts dictionaries` and `say --dictionary`: a PLS file in, the same PLS out, and its pronunciation in the audio. */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const dir = mkdtempSync(path.join(tmpdir(), 'svc-tts-dictionaries-'))
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args, '--data-dir', dir], { cwd: root })
const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>Nguyen</grapheme><phoneme>wɪn</phoneme></lexeme>
</lexicon>`

describe('svc-tts dictionaries', { timeout: 60_000 }, () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('creates one from a PLS file, lists it, shows it as PLS, speaks with it and deletes it', async () => {
    const file = path.join(dir, 'names.pls')
    writeFileSync(file, PLS)
    const created = (await cli('dictionaries', 'create', '--name', 'Names', file)).stdout
    const id = created.split(/\s+/)[0]!
    expect(created).toMatch(/v1\s+1 rules\s+Names/)
    expect((await cli('dictionaries', 'list')).stdout).toContain(id)
    const shown = (await cli('dictionaries', 'show', `${id}@1`, '--pls')).stdout
    expect(shown).toContain('<grapheme>Nguyen</grapheme>')
    expect(shown).toContain('<phoneme>wɪn</phoneme>')
    const withRule = path.join(dir, 'rule.wav')
    const withTag = path.join(dir, 'tag.wav')
    await cli('say', 'Hello Nguyen.', '--model', 'svc_flash_v1.5', '--out', withRule, '--quiet', '--dictionary', id)
    await cli('say', 'Hello <phonemes>wɪn</phonemes>.', '--model', 'svc_flash_v1.5', '--out', withTag, '--quiet')
    expect(readFileSync(withRule).equals(readFileSync(withTag))).toBe(true)
    await cli('dictionaries', 'delete', id)
    const gone = await cli('dictionaries', 'show', id).then(() => undefined, (error: { stderr: string }) => error.stderr)
    expect(gone).toMatch(/error DICTIONARY_NOT_FOUND/)
  })
})
