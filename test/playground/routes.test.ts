// The playground's routes on each adapter: the page and its files with their content types, only
// the page's own files (no other name, no path out of the folder), the models listing behind a
// key, and nothing at all unless the service is made with `playground: true`.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAYGROUND_FILES } from '../../lib/server/playground/assets.js'
import { testEngine } from '../helpers/engine.js'
import { rawRequest } from '../helpers/served.js'
import { ADAPTERS, KEY, start, TEST_KEYS, VOICES_ONLY_KEY, type Running } from '../helpers/server.js'

const root = path.resolve(import.meta.dirname, '../..')
const engine = await testEngine()

it('serves every file of the playground folder, and only those', () => {
  expect([...PLAYGROUND_FILES].sort()).toEqual(readdirSync(path.join(root, 'playground')).sort())
})

describe.each(ADAPTERS)('the playground on %s', (adapter) => {
  let server: Running
  let plain: Running
  beforeAll(async () => {
    server = await start(adapter, { engine, keys: TEST_KEYS, playground: true })
    plain = await start(adapter, { engine, keys: TEST_KEYS })
  })
  afterAll(() => Promise.all([server.close(), plain.close()]))

  it('serves the page and its files, as they are on disk, with their content types', async () => {
    const page = await fetch(`${server.base}/playground`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    // The browser test runs the page under this policy: a file or a connection it forbade would be a console error there.
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self';.* connect-src 'self';/)
    const html = await page.text()
    expect(html).toBe(readFileSync(path.join(root, 'playground/index.html'), 'utf8'))
    // The page names its files relative to /playground, so it also works under a prefix.
    for (const [, name] of html.matchAll(/(?:src|href)="playground\/assets\/([^"]+)"/g)) expect(PLAYGROUND_FILES).toContain(name)
    const types = { html: 'text/html; charset=utf-8', css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' }
    for (const name of PLAYGROUND_FILES) {
      const response = await fetch(`${server.base}/playground/assets/${name}`)
      expect(response.status, name).toBe(200)
      expect(response.headers.get('content-type')).toBe(types[name.split('.').pop() as keyof typeof types])
      expect(response.headers.get('cache-control')).toBe('no-cache')
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(path.join(root, 'playground', name))), name).toBe(true)
    }
  })

  it('sends /playground/ to the page, relatively, so that its relative files resolve (under a prefix too)', async () => {
    const slash = await fetch(`${server.base}/playground/`, { redirect: 'manual' })
    expect(slash.status).toBe(308)
    expect(new URL(slash.headers.get('location')!, `${server.base}/playground/`).href).toBe(`${server.base}/playground`)
    expect((await fetch(`${server.base}/playground/`)).url).toBe(`${server.base}/playground`)
  })

  it('serves nothing outside its own files', async () => {
    for (const target of ['/playground/assets/package.json', '/playground/assets/..%2Fpackage.json', '/playground/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/playground/assets/app.js%00.html', '/playground/assets/APP.JS']) {
      const response = await rawRequest(Number(new URL(server.base).port), `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      expect(response.status, target).toBe(404)
      expect(response.body).not.toContain('"version"')
    }
    const unknown = await fetch(`${server.base}/playground/assets/secret.txt`)
    expect(await unknown.json()).toMatchObject({ error_code: 'ROUTE_NOT_FOUND', message: "the playground has no file 'secret.txt'" })
  })

  it('lists the models to a key with the text_to_speech scope', async () => {
    expect((await fetch(`${server.base}/playground/models`)).status).toBe(401)
    expect((await fetch(`${server.base}/playground/models`, { headers: { 'x-api-key': VOICES_ONLY_KEY } })).status).toBe(401)
    const response = await fetch(`${server.base}/playground/models`, { headers: { 'x-api-key': KEY } })
    const { models } = (await response.json()) as { models: { id: string; languages: string[] }[] }
    expect(models.map((m) => m.id)).toEqual(engine.models.list().map((m) => m.id))
    expect(models.find((m) => m.id === 'svc_flash_v1.5')!.languages).toEqual(['en', 'es', 'fr', 'de', 'it', 'pt'])
  })

  it('is not there unless the service is made with playground: true', async () => {
    for (const target of ['/playground', '/playground/assets/app.js', '/playground/models']) {
      const response = await fetch(`${plain.base}${target}`, { headers: { 'x-api-key': KEY } })
      expect(response.status, target).toBe(404)
    }
  })
})
