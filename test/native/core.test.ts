/**
 * The native core without Node: the build makes test/native/core_test.cc into a program beside the
 * addon (svc_tts_core_test, linking the same core library), and each of its cases runs here in a
 * process of its own. Nothing is built here: a missing program fails with how to build it.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..')
// Beside the addon the tests load (an ASan build's, under scripts/test-asan.sh).
const addon = process.env.SVC_TTS_NATIVE_BINDING ?? path.join(root, 'build/Release/svc_tts.node')
const program = path.join(path.dirname(addon), 'svc_tts_core_test')

describe('the native core, in its own test program', () => {
  if (!existsSync(program)) {
    it('is built', () => {
      throw new Error(`${program} is missing: build it with \`npm run build:native\` (npx cmake-js compile)`)
    })
    return
  }
  const cases = execFileSync(program, ['--list'], { encoding: 'utf8' }).trim().split('\n')

  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(0)
  })

  for (const name of cases) {
    it(name.replaceAll('-', ' '), () => {
      const run = spawnSync(program, [name], { encoding: 'utf8', timeout: 20_000 })
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0)
      expect(run.stdout).toBe(`ok ${name}\n`)
    })
  }
})
