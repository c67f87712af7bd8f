/**
 * Run inside a mount namespace of its own with a small tmpfs at `dir` (test/hardening/service/
 * storage.test.ts): phase 'fill' clones a voice, fills the disk, and tries what a user would on a
 * full disk, then dies without closing anything (a crash); phase 'restart' starts on the same full
 * disk. Each prints one JSON line of outcomes.
 */
import { openSync, readFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { createEngine, PREDEFINED_VOICES, TtsError } from '../../../../lib/index.js'

const [dir, phase, samplePath] = process.argv.slice(2) as [string, 'fill' | 'restart', string]
const sarah = PREDEFINED_VOICES.find((v) => v.record.name === 'Sarah')!.record.voice_id

async function outcome(work: () => Promise<unknown>): Promise<{ ok: true } | { code: string; status: number } | { error: string }> {
  try {
    await work()
    return { ok: true }
  } catch (error) {
    return error instanceof TtsError ? { code: error.code, status: error.status } : { error: String(error) }
  }
}

const speak = (engine: Awaited<ReturnType<typeof createEngine>>) =>
  engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'The disk is full, and I still speak.', voice: { mode: 'id', id: sarah } })

function fillDisk(): void {
  const fd = openSync(path.join(dir, 'filler'), 'a')
  const block = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) writeSync(fd, block)
  } catch {
    // ENOSPC: the disk is full
  }
}

const engine = await createEngine({ dataDir: dir })
const out: Record<string, unknown> = {}
if (phase === 'fill') {
  const sample = readFileSync(samplePath)
  const first = await engine.voices.clone(sample, { name: 'first', language: 'en' })
  const second = await engine.voices.clone(sample, { name: 'second', language: 'en' })
  fillDisk()
  out.clone = await outcome(() => engine.voices.clone(sample, { name: 'third', language: 'en' }))
  out.rename = await outcome(() => engine.voices.update(first.voice_id, { name: 'renamed' }))
  out.delete = await outcome(() => engine.voices.delete(second.voice_id))
  out.speak = await outcome(() => speak(engine))
  out.speakClone = await outcome(() => engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still me.', voice: { mode: 'id', id: first.voice_id } }))
  fillDisk()  // what the delete freed (and the reserve) is taken again: the restart finds the disk full
  process.stdout.write(`${JSON.stringify(out)}\n`)
  process.kill(process.pid, 'SIGKILL')
} else {
  out.speak = await outcome(() => speak(engine))
  const page = await engine.voices.list({ voice_type: 'CUSTOM' })
  out.rename = await outcome(() => engine.voices.update(page.voices[0]!.voice_id, { name: 'renamed again' }))
  out.voices = page.voices.map((v) => v.name)
  out.speakClone = await outcome(() => engine.synthesize({ model_id: 'svc_flash_v1.5', transcript: 'Still me.', voice: { mode: 'id', id: page.voices[0]!.voice_id } }))
  process.stdout.write(`${JSON.stringify(out)}\n`)
  await engine.close()
}
