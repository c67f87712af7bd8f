// The playground page in Debian's Chromium: a person's session from the key form to speaking,
// stopping, downloading, cloning from a file and from the (fake) microphone, deleting, and an
// error the server gave. Assertions are on what the browser really did: the PCM frames the page
// scheduled into Web Audio, the words it lit, the WebSocket frames it received, the WAV it saved.
// Screenshots of each state go to test-output/playground/ (git-ignored).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page, WebSocket as PageSocket } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { collectErrors, launchChromium } from '../helpers/browser.js'
import { firstVoiceOf, testEngine, voiceId } from '../helpers/engine.js'
import { KEY, post, start, TEST_KEYS, type Running } from '../helpers/server.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const OUT = path.join(root, 'test-output/playground')
const MAX_CONTEXT_CHARS = 12_000
const SENTENCE = 'The birch canoe slid on the smooth planks.'
// About eight minutes of speech: the service makes it much faster than it plays, but not in the second before Stop.
const LONG = Array.from({ length: 130 }, () => 'Glue the sheet to the dark blue background, then read the next line aloud.').join(' ')

interface PageStats {
  state: string
  chunks: number
  bytes: number
  frames: number
  firstAudioMs?: number
  highlighted: string[]
  error?: { code: string; message: string }
}

const engine = await testEngine()
let server: Running
let browser: Browser
let page: Page
let errors: string[]
/** Every WebSocket frame the page received, in order, as JSON. */
const received: Record<string, unknown>[] = []
/**
 * Paths whose refusal is expected (Chromium logs each failed load as a console error): the token
 * endpoint, which this server lacks, and what a test provokes on purpose while it runs.
 */
const refusedOnPurpose = new Set(['/playground/token'])

const stats = () => page.evaluate(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground)
const waitForState = (state: string, timeout = 30_000) => page.waitForFunction((s) => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground.state === s, state, { timeout })
const shot = (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true })

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true })
  // Real speech for the clone sample and for the fake microphone to hear (a voice needs 3 s of speech).
  const speech = await engine.synthesize({
    model_id: 'svc_flash_v1.5',
    transcript: 'Good morning. I am recording a sample of my voice, so that it can be cloned. The rainbow is a division of white light into many beautiful colors.',
    voice: { mode: 'id', id: voiceId('Sarah') },
    output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 48000 },
  })
  const sample = path.join(OUT, 'sample.wav')
  writeFileSync(sample, speech)
  server = await start('standalone', { engine, keys: TEST_KEYS, playground: true, realtime: { maxContextChars: MAX_CONTEXT_CHARS } })
  browser = await launchChromium([`--use-file-for-fake-audio-capture=${sample}`])
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  errors = collectErrors(page, (text, url) => text.startsWith('Failed to load resource') && refusedOnPurpose.has(new URL(url).pathname))
  page.on('websocket', (socket: PageSocket) => socket.on('framereceived', ({ payload }) => received.push(JSON.parse(String(payload)) as Record<string, unknown>)))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the playground in Chromium', () => {
  it('asks for the API key once, then offers the models and voices', async () => {
    await page.goto(`${server.base}/playground`)
    await page.waitForSelector('#key-dialog:not([hidden])')
    await shot('1-key')
    await page.fill('#key-input', KEY)
    await page.click('#key-form button[type=submit]')
    await waitForState('idle')
    expect(await page.evaluate(() => localStorage.getItem('svc-tts.playground.api-key'))).toBe(KEY)
    const models = await page.$$eval('#model option', (options) => options.map((o) => (o as HTMLOptionElement).value))
    expect(models).toEqual(expect.arrayContaining(['svc_pro_v1.0', 'svc_flash_v1.5', 'svc_flash_v1.0']))
    const voices = await page.$$eval('#voice option', (options) => options.map((o) => o.textContent))
    expect(voices.some((v) => v?.startsWith('Sarah'))).toBe(true)
    await shot('2-ready')
    // A reload keeps the key: no form again.
    await page.reload()
    await waitForState('idle')
    expect(await page.isHidden('#key-dialog')).toBe(true)
  }, 60_000)

  it('speaks as the audio arrives: frames scheduled, each word lit in order, time to first audio shown, the WAV saved', async () => {
    await page.selectOption('#model', 'svc_pro_v1.0')
    await page.selectOption('#voice', voiceId('Sarah'))
    await page.fill('#text', SENTENCE)
    await page.click('#speak')
    await page.waitForFunction(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground.highlighted.length >= 3, undefined, { timeout: 30_000 })
    await shot('3-speaking')
    await waitForState('done')
    const done = await stats()
    expect(done.frames).toBeGreaterThan(44100 * 1.5)
    expect(done.frames * 2).toBe(done.bytes)
    expect(done.highlighted).toEqual(SENTENCE.split(' '))
    expect(await page.$$eval('#reader .word.spoken', (words) => words.length)).toBe(SENTENCE.split(' ').length)
    expect(done.firstAudioMs).toBeGreaterThan(0)
    expect(await page.textContent('#ttfa-value')).toBe(String(done.firstAudioMs))
    await shot('4-done')

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')])
    const wav = decodeWav(readFileSync((await download.path())!))
    expect(wav).toMatchObject({ formatTag: 1, channels: 1, sampleRate: 44100, bitsPerSample: 16, dataSize: done.bytes })
    // What the page played is the service's speech itself: the same PCM as a one-shot request.
    const oneShot = await post(server.base, '/text_to_speech', { model_id: 'svc_pro_v1.0', transcript: SENTENCE, voice: { mode: 'id', id: voiceId('Sarah') }, language: 'en', speed: 1 })
    expect(wav.data.equals(decodeWav(Buffer.from(await oneShot.arrayBuffer())).data)).toBe(true)
  }, 60_000)

  it('lights the words of text written without spaces, where the service says they fall', async () => {
    await page.selectOption('#model', 'svc_flash_v1.0')
    await page.selectOption('#voice', firstVoiceOf('zh'))
    expect(await page.inputValue('#language')).toBe('zh')
    await page.fill('#text', '你好世界。今天天气很好。')
    await page.click('#speak')
    await waitForState('done')
    expect((await stats()).highlighted).toEqual(['你', '好', '世', '界', '今', '天', '天', '气', '很', '好'])
    expect(await page.$$eval('#reader .word', (words) => words.map((w) => w.textContent))).toEqual(['你', '好', '世', '界。', '今', '天', '天', '气', '很', '好。'])
    await page.selectOption('#model', 'svc_pro_v1.0')
    await page.selectOption('#voice', voiceId('Sarah'))
  }, 60_000)

  it('Stop cancels the context: playback stops, nothing more arrives', async () => {
    await page.fill('#text', LONG)
    await page.selectOption('#sample-rate', '16000')
    const before = received.length
    await page.click('#speak')
    await page.waitForFunction(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground.highlighted.length >= 2, undefined, { timeout: 30_000 })
    await page.click('#stop')
    await waitForState('stopped', 10_000)
    const stopped = await stats()
    const framesAtAck = received.length
    await page.waitForTimeout(1500)
    expect(await stats()).toEqual(stopped)
    // The cancel's acknowledgement was the last frame of the context, and nothing came after it.
    expect(received.length).toBe(framesAtAck)
    const ack = received.map((frame) => frame.cancelled === true).lastIndexOf(true)
    expect(ack).toBeGreaterThan(before)
    const context = received[ack]!.context_id
    expect(received.slice(ack + 1).filter((frame) => frame.context_id === context)).toEqual([])
    // Stopped mid-way: the context's last audio (final: true) had not come when it was cancelled.
    const audio = received.slice(before, ack).filter((frame) => frame.context_id === context)
    expect(audio.length).toBeGreaterThan(0)
    expect(audio.some((frame) => frame.final === true)).toBe(false)
    expect(stopped.frames * 2).toBe(stopped.bytes)
    expect(stopped.highlighted.length).toBeLessThan(LONG.split(' ').length)
    expect(stopped.frames).toBeGreaterThan(0)
    expect(await page.isEnabled('#speak')).toBe(true)
    await shot('5-stopped')
    await page.selectOption('#sample-rate', '44100')
  }, 60_000)

  it('clones a voice from a file, speaks with it and deletes it', async () => {
    await page.fill('#clone-name', 'File clone')
    await page.selectOption('#clone-language', 'en')
    await page.setInputFiles('#clone-file', path.join(OUT, 'sample.wav'))
    await page.click('#clone')
    const item = page.locator('#custom-voices li', { hasText: 'File clone' })
    await item.waitFor({ timeout: 45_000 })
    const cloneId = await item.getAttribute('data-voice-id')
    expect(await page.inputValue('#voice')).toBe(cloneId)
    await speakAndCheck(SENTENCE)
    await shot('6-cloned-from-file')
    await item.getByRole('button', { name: 'Delete' }).click()
    await item.waitFor({ state: 'detached' })
    expect((await fetch(`${server.base}/voices/${cloneId}`, { headers: { 'x-api-key': KEY } })).status).toBe(404)
  }, 60_000)

  it('clones a voice from the microphone, showing the 3 s minimum while recording', async () => {
    await page.click('#record')
    await page.waitForSelector('#recording:not([hidden])')
    expect(await page.textContent('#record-min')).toMatch(/to the 3 s minimum/)
    await page.waitForFunction(() => parseFloat(document.getElementById('record-time')!.textContent!) >= 1.5)
    await shot('7-recording')
    await page.waitForFunction(() => parseFloat(document.getElementById('record-time')!.textContent!) >= 6)
    expect(await page.textContent('#record-min')).toBe('3 s minimum reached')
    expect(await page.isHidden('#sample')).toBe(true)
    await page.click('#record')
    await page.waitForSelector('#sample:not([hidden])')
    expect(await page.textContent('#sample-name')).toBe('recording.wav')
    await page.fill('#clone-name', 'Mic clone')
    await page.click('#clone')
    const item = page.locator('#custom-voices li', { hasText: 'Mic clone' })
    await item.waitFor({ timeout: 40_000 })
    await speakAndCheck('Now I speak with the voice I recorded.')
    await shot('8-cloned-from-microphone')
    await item.getByRole('button', { name: 'Delete' }).click()
    await item.waitFor({ state: 'detached' })
  }, 60_000)

  it("shows the server's message when it refuses a clone: a recording too short", async () => {
    refusedOnPurpose.add('/voices/clone')
    try {
      await page.click('#record')
      await page.waitForFunction(() => parseFloat(document.getElementById('record-time')!.textContent!) >= 2)
      await page.click('#record')
      await page.waitForSelector('#sample:not([hidden])', { timeout: 5000 })
      await page.fill('#clone-name', 'Too short')
      const [refusal] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/voices/clone')), page.click('#clone')])
      expect(refusal.status()).toBe(400)
      const body = (await refusal.json()) as { error_code: string; message: string }
      expect(body.error_code).toBe('SAMPLE_TOO_SHORT')
      await page.waitForSelector('#clone-error:not([hidden])')
      expect(await page.textContent('#clone-error .error-code')).toBe('SAMPLE_TOO_SHORT')
      expect(await page.textContent('#clone-error .error-message')).toBe(body.message)
      expect(body.message).toMatch(/at least 3 s are needed/)
      expect(await page.$$eval('#custom-voices li', (items) => items.length)).toBe(0)
      await shot('9-clone-refused')
    } finally {
      refusedOnPurpose.delete('/voices/clone')
    }
  }, 30_000)

  it("shows the server's message when it refuses the request", async () => {
    await page.fill('#text', 'x'.repeat(MAX_CONTEXT_CHARS + 1))
    const before = received.length
    await page.press('#text', 'Control+Enter')
    await waitForState('error', 10_000)
    const { error, frames } = await stats()
    const refusal = received.slice(before).find((frame) => frame.error_code !== undefined)!
    expect(refusal).toMatchObject({ error_code: 'TRANSCRIPT_TOO_LONG' })
    expect(error).toEqual({ code: 'TRANSCRIPT_TOO_LONG', message: refusal.message })
    expect(await page.textContent('#speak-error .error-message')).toBe(`a context takes at most ${MAX_CONTEXT_CHARS} characters of text`)
    expect(await page.isVisible('#speak-error')).toBe(true)
    expect(frames).toBe(0)
    await shot('10-error')
  }, 30_000)

  it('logged no console error and threw nothing', () => {
    expect(errors).toEqual([])
  })
})

// The other adapters serve the same page, and it speaks through them the same way, in the other encodings.
describe.each([
  { adapter: 'express', encoding: 'pcm_mulaw', sampleRate: 8000, bytesPerSample: 1, formatTag: 7 },
  { adapter: 'fastify', encoding: 'pcm_f32le', sampleRate: 24000, bytesPerSample: 4, formatTag: 3 },
] as const)('the playground served by $adapter, speaking $encoding', ({ adapter, encoding, sampleRate, bytesPerSample, formatTag }) => {
  let other: Running
  let otherPage: Page
  let otherErrors: string[]
  beforeAll(async () => {
    other = await start(adapter, { engine, keys: TEST_KEYS, playground: true })
    otherPage = await (await browser.newContext()).newPage()
    otherErrors = collectErrors(otherPage, (text, url) => text.startsWith('Failed to load resource') && new URL(url).pathname === '/playground/token')
    await otherPage.addInitScript((key) => localStorage.setItem('svc-tts.playground.api-key', key), KEY)
  }, 30_000)
  afterAll(async () => {
    await otherPage?.context().close()
    await other?.close()
  })

  it('speaks a sentence, each word lit in order, saves it in its encoding, with no console error', async () => {
    await otherPage.goto(`${other.base}/playground`)
    await otherPage.waitForFunction(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground.state === 'idle', undefined, { timeout: 20_000 })
    await otherPage.selectOption('#encoding', encoding)
    await otherPage.selectOption('#sample-rate', String(sampleRate))
    await otherPage.fill('#text', SENTENCE)
    await otherPage.click('#speak')
    await otherPage.waitForFunction(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground.state === 'done', undefined, { timeout: 30_000 })
    const done = await otherPage.evaluate(() => (window as unknown as { svcTtsPlayground: PageStats }).svcTtsPlayground)
    expect(done.frames).toBeGreaterThan(sampleRate * 1.5)
    expect(done.frames * bytesPerSample).toBe(done.bytes)
    expect(done.highlighted).toEqual(SENTENCE.split(' '))
    expect(Number(await otherPage.textContent('#ttfa-value'))).toBe(done.firstAudioMs)
    const [download] = await Promise.all([otherPage.waitForEvent('download'), otherPage.click('#download')])
    const wav = decodeWav(readFileSync((await download.path())!))
    expect(wav).toMatchObject({ formatTag, channels: 1, sampleRate, bitsPerSample: bytesPerSample * 8, dataSize: done.bytes })
    expect(otherErrors).toEqual([])
  }, 60_000)
})

async function speakAndCheck(text: string): Promise<void> {
  await page.fill('#text', text)
  await page.click('#speak')
  await waitForState('done')
  const done = await stats()
  expect(done.frames).toBeGreaterThan(44100 * 0.8)
  expect(done.highlighted).toEqual(text.split(' '))
}
