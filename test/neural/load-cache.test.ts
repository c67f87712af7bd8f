/**
 * The load cache (native/onnx/model_cache.h): what a load makes of a model file (the lifted model,
 * or its two parts cut before the vocoder and what the probe found) is kept, and a second load of
 * the same file reads it; the audio is the same bytes either way. A changed file, a cache that
 * cannot be written and two processes filling one entry at once all still load.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine, packVoiceId, type Engine } from '../../lib/index.js'
import type { PackOptions } from '../../lib/neural/options.js'
import { collect } from '../helpers/engine.js'
import { FIXTURES, packOf, PIPER } from './fixtures.js'

const VITS = `${FIXTURES}/en_US-fixturevits-medium.onnx`
const VITS_NORMALISED = `${FIXTURES}/en_US-fixturevitsnorm-medium.onnx`
const TEXT = 'The birch canoe slid on the smooth planks.'
const execFileAsync = promisify(execFile)

let dir: string
let previous: string | undefined
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'svc-tts-load-cache-'))
  previous = process.env.SVC_TTS_CACHE_DIR
})
afterAll(() => {
  if (previous === undefined) delete process.env.SVC_TTS_CACHE_DIR
  else process.env.SVC_TTS_CACHE_DIR = previous
  rmSync(dir, { recursive: true, force: true })
})

/** Loads `pack` with the cache at `cache`, says TEXT, and closes: its info and audio. */
async function loadAndSpeak(cache: string, pack: PackOptions, warnings: string[] = [], device: 'cpu' | 'auto' = 'cpu') {
  process.env.SVC_TTS_CACHE_DIR = cache
  const engine: Engine<string> = await createEngine({ models: { voice: pack }, device, onWarning: (message) => warnings.push(message) })
  try {
    const info = packOf(engine, 'voice').info
    const chunks = await collect(engine.speak({
      model_id: 'voice', transcript: TEXT, voice: { mode: 'id', id: packVoiceId(packOf(engine, 'voice'), packOf(engine, 'voice').speakers[0]!.name) },
      output_format: { encoding: 'pcm_f32le', sample_rate: 22050 },
    }))
    return { info, audio: Buffer.concat(chunks.map((c) => c.audio)) }
  } finally {
    await engine.close()
  }
}

describe('the load cache', () => {
  it('serves a second load of the same file, windowed or whole, with the same audio', async () => {
    const cache = path.join(dir, 'same')
    for (const pack of [{ type: 'piper', path: VITS }, { type: 'piper', path: VITS, windowedVocoder: false }, { type: 'piper', path: PIPER }] as PackOptions[]) {
      const first = await loadAndSpeak(cache, pack)
      const second = await loadAndSpeak(cache, pack)
      const uncached = await loadAndSpeak(cache, { ...pack, cache: false })
      expect(first.info.loadedFrom).toBe('file')
      expect(second.info.loadedFrom).toBe('cache')
      expect(uncached.info.loadedFrom).toBe('file')
      // The cache gives back what the load found: the same parts, convolutions and audio.
      expect({ ...second.info, loadedFrom: 'file' }).toEqual(first.info)
      expect(second.audio.length).toBeGreaterThan(0)
      expect(second.audio.equals(first.audio)).toBe(true)
      expect(uncached.audio.equals(first.audio)).toBe(true)
    }
    expect(readdirSync(cache).filter((f) => f.startsWith('.tmp-'))).toEqual([])
  })

  it('serves device auto that falls back to the CPU the same way', async () => {
    const cache = path.join(dir, 'auto')
    const first = await loadAndSpeak(cache, { type: 'piper', path: VITS }, [], 'auto')
    const second = await loadAndSpeak(cache, { type: 'piper', path: VITS }, [], 'auto')
    const cpu = await loadAndSpeak(cache, { type: 'piper', path: VITS })
    expect(first.info).toMatchObject({ device: 'cpu', loadedFrom: 'file', windowedVocoder: true })
    expect(second.info).toMatchObject({ device: 'cpu', loadedFrom: 'cache', windowedVocoder: true })
    // The CPU's entry is the one the fallback filled.
    expect(cpu.info.loadedFrom).toBe('cache')
    expect(second.audio.equals(first.audio)).toBe(true)
    expect(cpu.audio.equals(first.audio)).toBe(true)
  })

  it('does not serve a changed file (same path, new content) from the old entry', async () => {
    const cache = path.join(dir, 'changed')
    const voice = path.join(dir, 'voice.onnx')
    copyFileSync(VITS, voice)
    copyFileSync(`${VITS}.json`, `${voice}.json`)
    await loadAndSpeak(cache, { type: 'piper', path: voice })
    expect((await loadAndSpeak(cache, { type: 'piper', path: voice })).info.loadedFrom).toBe('cache')
    // Written over in place: the same inode, a new content (a vocoder windows do not suit).
    writeFileSync(voice, readFileSync(VITS_NORMALISED))
    copyFileSync(`${VITS_NORMALISED}.json`, `${voice}.json`)
    const changed = await loadAndSpeak(cache, { type: 'piper', path: voice })
    expect(changed.info).toMatchObject({ loadedFrom: 'file', windowedVocoder: false, windowedVocoderWhy: 'the vocoder reaches 32 frames' })
    const reference = await loadAndSpeak(cache, { type: 'piper', path: VITS_NORMALISED, cache: false })
    expect(changed.audio.equals(reference.audio)).toBe(true)
    // The same size, one byte of it changed (the producer's name): still a new entry.
    expect((await loadAndSpeak(cache, { type: 'piper', path: voice })).info.loadedFrom).toBe('cache')
    const bytes = readFileSync(voice)
    const at = bytes.indexOf('svc-tts fixtures')
    expect(at).toBeGreaterThan(0)
    bytes[at + 15] = 'z'.charCodeAt(0)
    writeFileSync(voice, bytes)
    expect((await loadAndSpeak(cache, { type: 'piper', path: voice })).info.loadedFrom).toBe('file')
  })

  it('loads in memory, with a warning, where the cache directory cannot be made', async () => {
    const file = path.join(dir, 'a-file')
    writeFileSync(file, 'not a directory')
    const warnings: string[] = []
    const loaded = await loadAndSpeak(path.join(file, 'cache'), { type: 'piper', path: VITS }, warnings)
    expect(loaded.info.loadedFrom).toBe('file')
    expect(loaded.info.cacheWhy).toContain('cannot create')
    expect(warnings.join('\n')).toContain('could not be cached')
    const reference = await loadAndSpeak(path.join(dir, 'reference'), { type: 'piper', path: VITS, cache: false })
    expect(loaded.audio.equals(reference.audio)).toBe(true)
  })

  it('two processes loading a new file at once both load, and leave one whole entry', async () => {
    const cache = path.join(dir, 'concurrent')
    const child = path.join(path.dirname(new URL(import.meta.url).pathname), 'load-cache-child.ts')
    const run = () => execFileAsync(process.execPath, ['--import', 'tsx', child, VITS], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SVC_TTS_CACHE_DIR: cache } })
    const results = await Promise.all([run(), run()])
    for (const { stdout } of results) expect(JSON.parse(stdout.trim().split('\n').pop()!)).toMatchObject({ loadedFrom: expect.stringMatching(/^(file|cache)$/) })
    const after = await run()
    expect(JSON.parse(after.stdout.trim().split('\n').pop()!)).toEqual({ loadedFrom: 'cache' })
    expect(readdirSync(cache).filter((f) => f.startsWith('.tmp-'))).toEqual([])
  })
})
