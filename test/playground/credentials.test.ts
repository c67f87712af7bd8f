// The playground's credentials, in Chromium: an API key the server refuses, the server's own
// playground token, and a token refused once. For that last one the browser's traffic is
// routed: POST /playground/token answers tokens tok_1, tok_2..., the HTTP requests are checked
// for their bearer token and passed on to the real server with its key, and the WebSocket is
// bridged to the real one. What is asserted is the page's own behaviour: after a 401 it mints
// again exactly once, and requests refused together share that one renewal.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import WebSocket from 'ws'
import { collectErrors, launchChromium } from '../helpers/browser.js'
import { testEngine } from '../helpers/engine.js'
import { KeyStore } from '../../lib/server/keys.js'
import { KEY, start, TEST_KEYS, type Running } from '../helpers/server.js'

const SENTENCE = 'Signed in with a token, the page speaks.'
const engine = await testEngine()
let server: Running
let browser: Browser
let page: Page
let errors: string[]
const idle = () => (window as unknown as { svcTtsPlayground: { state: string } }).svcTtsPlayground.state === 'idle'
let minted = 0
/** The credentials of each request the page made to the service: its bearer token, and any key. */
const requests: { path: string; authorization?: string; apiKey?: string }[] = []
const sockets: URL[] = []

beforeAll(async () => {
  server = await start('standalone', { engine, keys: TEST_KEYS, playground: true })
  browser = await launchChromium()
  const context = await browser.newContext()
  await context.route('**/playground/token', (route) => {
    minted++
    return route.fulfill({ json: { token: `tok_${minted}`, expires_at: new Date(Date.now() + 600_000).toISOString() } })
  })
  await context.route((url) => url.pathname === '/playground/models' || url.pathname.startsWith('/voices'), (route) => {
    const headers = route.request().headers()
    requests.push({ path: new URL(route.request().url()).pathname, authorization: headers.authorization, apiKey: headers['x-api-key'] })
    // tok_1 has "expired": the page must mint tok_2 and retry.
    if (headers.authorization !== 'Bearer tok_2') return route.fulfill({ status: 401, json: { error_code: 'INVALID_API_KEY', message: 'the token expired' } })
    const { authorization: _, ...rest } = headers
    return route.continue({ headers: { ...rest, 'x-api-key': KEY } })
  })
  await context.routeWebSocket(/\/text_to_speech\/websocket\/ws/, (socket) => {
    sockets.push(new URL(socket.url()))
    const upstream = new WebSocket(`${server.ws}/text_to_speech/websocket/ws?version=v1&api_key=${KEY}`)
    const waiting: string[] = []
    upstream.on('open', () => waiting.splice(0).forEach((message) => upstream.send(message)))
    socket.onMessage((message) => (upstream.readyState === WebSocket.OPEN ? upstream.send(String(message)) : waiting.push(String(message))))
    upstream.on('message', (data) => socket.send(String(data)))
    upstream.on('close', () => socket.close({ code: 1000 }))
    socket.onClose(() => upstream.close())
  })
  page = await context.newPage()
  // The one expected failed load: the refusal of tok_1.
  errors = collectErrors(page, (text, url) => text.includes('status of 401') && ['/playground/models', '/voices'].includes(new URL(url).pathname))
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

it("asks for another key when the stored one is refused, with the server's message", async () => {
  const context = await browser.newContext()
  const keyPage = await context.newPage()
  // The stored key's refusals, and the token endpoint this server lacks, are the failed loads expected.
  const keyErrors = collectErrors(keyPage, (text, url) =>
    text.startsWith('Failed to load resource') && (new URL(url).pathname === '/playground/token' || (text.includes('status of 401') && ['/playground/models', '/voices'].includes(new URL(url).pathname))))
  try {
    await keyPage.addInitScript(() => localStorage.getItem('svc-tts.playground.api-key') ?? localStorage.setItem('svc-tts.playground.api-key', 'sk_revoked_or_mistyped'))
    await keyPage.goto(`${server.base}/playground`)
    await keyPage.waitForSelector('#key-dialog:not([hidden])')
    expect(await keyPage.textContent('#key-reason')).toBe('the API key is not valid. Enter a valid API key.')
    await keyPage.fill('#key-input', KEY)
    await keyPage.click('#key-form button[type=submit]')
    await keyPage.waitForFunction(idle, undefined, { timeout: 20_000 })
    expect(await keyPage.evaluate(() => localStorage.getItem('svc-tts.playground.api-key'))).toBe(KEY)
    expect(await keyPage.$$eval('#voice option', (options) => options.length)).toBeGreaterThan(10)
    expect(keyErrors).toEqual([])
  } finally {
    await context.close()
  }
}, 60_000)

it("signs in with the server's own playground token, without a key or a console error", async () => {
  const keys = KeyStore.fromConfig(TEST_KEYS)
  const minting = await start('standalone', { engine, keys, playground: true, tokens: { playgroundKey: keys.verify(KEY)!.keyId } })
  const context = await browser.newContext()
  const tokenPage = await context.newPage()
  const tokenErrors = collectErrors(tokenPage)
  const credentials: { path: string; authorization?: string; apiKey?: string }[] = []
  tokenPage.on('request', (request) => {
    const { pathname } = new URL(request.url())
    if (pathname === '/playground/models' || pathname.startsWith('/voices')) credentials.push({ path: pathname, authorization: request.headers().authorization, apiKey: request.headers()['x-api-key'] })
  })
  const socketUrls: URL[] = []
  tokenPage.on('websocket', (socket) => socketUrls.push(new URL(socket.url())))
  try {
    await tokenPage.goto(`${minting.base}/playground`)
    await tokenPage.waitForFunction(idle, undefined, { timeout: 20_000 })
    expect(await tokenPage.isHidden('#key-dialog')).toBe(true)
    expect(await tokenPage.textContent('#status')).toBe('Ready (signed in for this session)')
    expect(credentials.length).toBeGreaterThanOrEqual(2)
    for (const sent of credentials) expect(sent).toEqual({ path: sent.path, authorization: expect.stringMatching(/^Bearer tk_/), apiKey: undefined })
    await tokenPage.fill('#text', SENTENCE)
    await tokenPage.click('#speak')
    await tokenPage.waitForFunction(() => (window as unknown as { svcTtsPlayground: { state: string } }).svcTtsPlayground.state === 'done', undefined, { timeout: 30_000 })
    const done = await tokenPage.evaluate(() => (window as unknown as { svcTtsPlayground: { frames: number; highlighted: string[] } }).svcTtsPlayground)
    expect(done.frames).toBeGreaterThan(44100)
    expect(done.highlighted).toEqual(SENTENCE.split(' '))
    expect(socketUrls.map((url) => [url.searchParams.get('access_token')?.startsWith('tk_'), url.searchParams.get('api_key')])).toEqual([[true, null]])
    expect(await tokenPage.evaluate(() => localStorage.length)).toBe(0)
    expect(tokenErrors).toEqual([])
  } finally {
    await context.close()
    await minting.close()
  }
}, 60_000)

it('signs in with a minted token, mints once more after a 401, and speaks with it', async () => {
  await page.goto(`${server.base}/playground`)
  await page.waitForFunction(idle, undefined, { timeout: 20_000 })
  expect(minted).toBe(2)
  expect(await page.isHidden('#key-dialog')).toBe(true)
  expect(await page.textContent('#status')).toBe('Ready (signed in for this session)')
  // The models and the voices are asked for together: both refused, one renewal, both retried with it.
  expect(requests.filter((r) => r.authorization === 'Bearer tok_1').map((r) => r.path).sort()).toEqual(['/playground/models', '/voices'])
  expect(requests.filter((r) => r.authorization === 'Bearer tok_2').map((r) => r.path).sort()).toEqual(['/playground/models', '/voices'])
  expect(requests.every((r) => r.apiKey === undefined)).toBe(true)

  await page.fill('#text', SENTENCE)
  await page.click('#speak')
  await page.waitForFunction(() => (window as unknown as { svcTtsPlayground: { state: string } }).svcTtsPlayground.state === 'done', undefined, { timeout: 30_000 })
  const done = await page.evaluate(() => (window as unknown as { svcTtsPlayground: { frames: number; highlighted: string[] } }).svcTtsPlayground)
  expect(done.frames).toBeGreaterThan(44100)
  expect(done.highlighted).toEqual(SENTENCE.split(' '))
  expect(sockets).toHaveLength(1)
  expect(sockets[0]!.searchParams.get('access_token')).toBe('tok_2')
  expect(sockets[0]!.searchParams.get('api_key')).toBeNull()
  expect(sockets[0]!.searchParams.get('version')).toBe('v1')
  expect(await page.evaluate(() => localStorage.length)).toBe(0)
  expect(errors).toEqual([])
}, 60_000)
