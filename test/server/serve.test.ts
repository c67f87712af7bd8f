import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { decodeWav } from '../helpers/audio.js'
import { voiceId } from '../helpers/engine.js'
import { serve, serveListening } from '../helpers/served.js'
import { ADAPTERS } from '../helpers/server.js'

const root = path.resolve(import.meta.dirname, '../..')
const run = promisify(execFile)
const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts', ...args], { cwd: root })

const kal = { model_id: 'svc_pro_v1.0', transcript: 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well. '.repeat(12), voice: { mode: 'id', id: voiceId('Kal') } }

describe.each(ADAPTERS)('svc-tts serve --framework %s', (framework) => {
  it('creates and prints a key once, keeps only its hash, logs each request, and shuts down gracefully on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-serve-'))
    const first = serve(dataDir, framework)
    const listening = JSON.parse(await first.waitFor((line) => line.includes('"listening"'))) as { url: string }
    const key = first.lines.find((line) => line.startsWith('sk_'))!
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)
    const file = readFileSync(path.join(dataDir, 'api-keys.json'), 'utf8')
    expect(file).not.toContain(key)
    expect(file).toContain(JSON.parse(file).keys[0].hash)

    const status = await fetch(`${listening.url}/`, { headers: { version: 'v1' } })
    expect(await status.json()).toEqual({ status: 'ok', version: 'v1' })
    const requestId = status.headers.get('x-request-id')!
    const logged = JSON.parse(await first.waitFor((line) => line.includes(requestId))) as Record<string, unknown>
    expect(logged).toMatchObject({ msg: 'request', method: 'GET', path: '/', status: 200, request_id: requestId })

    const headers = { 'content-type': 'application/json', 'x-api-key': key }
    const expected = decodeWav(Buffer.from(await (await fetch(`${listening.url}/text_to_speech`, { method: 'POST', headers, body: JSON.stringify(kal) })).arrayBuffer())).data
    const streaming = await fetch(`${listening.url}/text_to_speech/streaming`, { method: 'POST', headers, body: JSON.stringify(kal) })
    const reader = streaming.body!.getReader()
    const parts = [Buffer.from((await reader.read()).value!)]
    first.child.kill('SIGTERM')
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      parts.push(Buffer.from(value))
    }
    expect(Buffer.concat(parts).equals(expected)).toBe(true)  // the stream in flight finished
    expect(await first.exit).toBe(0)
    expect(first.lines.some((line) => line.includes('"stopped"'))).toBe(true)

    // A second start finds the key file: no new key is printed, and the first key still works.
    const second = serve(dataDir, framework)
    const again = JSON.parse(await second.waitFor((line) => line.includes('"listening"'))) as { url: string }
    expect(second.lines.some((line) => line.startsWith('sk_'))).toBe(false)
    expect((await fetch(`${again.url}/voices`, { method: 'POST', headers, body: '{"limit":1}' })).status).toBe(200)
    // Revoked with `svc-tts keys` while the server runs: refused once the server has seen the file change.
    const id = (await cli('keys', 'list', '--data-dir', dataDir)).stdout.split(/\s+/)[0]!
    await cli('keys', 'revoke', id, '--data-dir', dataDir)
    const deadline = Date.now() + 10_000
    let afterRevoke = 200
    while (afterRevoke === 200 && Date.now() < deadline) {
      afterRevoke = (await fetch(`${again.url}/voices`, { method: 'POST', headers, body: '{"limit":1}' })).status
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(afterRevoke).toBe(401)
    second.child.kill('SIGINT')
    expect(await second.exit).toBe(0)
  }, 90_000)
})

describe('svc-tts serve log lines', () => {
  it('logs every request answered before a SIGTERM, in order, with the stop last', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-serve-'))
    const served = await serveListening(dataDir, 'standalone')
    const ids: string[] = []
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${served.url}/`, { headers: { version: 'v1' } })))
      for (const answer of answers) (await answer.arrayBuffer(), ids.push(answer.headers.get('x-request-id')!))
    }
    expect(await served.stop()).toBe(0)
    const logged = served.lines.filter((line) => line.includes('"request"')).map((line) => (JSON.parse(line) as { request_id: string }).request_id)
    expect(new Set(logged)).toEqual(new Set(ids))
    const messages = served.lines.filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg)
    expect(messages.slice(-2)).toEqual(['shutting down', 'stopped'])
  }, 60_000)
})

describe('svc-tts serve --dialects', () => {
  const speech = (url: string, key: string) =>
    fetch(`${url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ model: 'tts-1', input: 'Hello.', voice: 'alloy', response_format: 'pcm' }) })

  it('serves the dialects by default, none with --dialects none, and refuses a name it does not know', async () => {
    const key = 'sk_test_dialects_key_0123456789abcdef0123'
    const env = { SVC_TTS_API_KEYS: key }
    const all = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-dialects-')), 'standalone', { env })
    const spoken = await speech(all.url, key)
    expect(spoken.status).toBe(200)
    expect((await spoken.arrayBuffer()).byteLength).toBeGreaterThan(24000 * 2 * 0.2)
    expect(await all.stop()).toBe(0)

    const none = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-dialects-')), 'standalone', { env, args: ['--dialects', 'none'] })
    const refused = await speech(none.url, key)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toMatchObject({ error_code: 'ROUTE_NOT_FOUND' })
    expect(await none.stop()).toBe(0)

    await expect(cli('serve', '--dialects', 'openai,klingon')).rejects.toThrow(/--dialects takes .*unknown: klingon/)
  }, 60_000)
})

describe('svc-tts serve --limits', () => {
  it('holds every key to the limits given, and refuses a malformed or unknown one before starting', async () => {
    const key = 'sk_test_limits_key_0123456789abcdef012345'
    const served = await serveListening(mkdtempSync(path.join(tmpdir(), 'svc-tts-limits-')), 'standalone', { env: { SVC_TTS_API_KEYS: key }, args: ['--limits', 'requestsPerWindow=2,windowSeconds=60'] })
    const list = () => fetch(`${served.url}/voices`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{"limit":1}' }).then(async (r) => [r.status, r.status === 200 ? undefined : ((await r.json()) as { error_code: string }).error_code])
    expect([await list(), await list(), await list()]).toEqual([[200, undefined], [200, undefined], [429, 'RATE_LIMIT_EXCEEDED']])
    expect(await served.stop()).toBe(0)
    await expect(cli('serve', '--limits', 'concurrentRequests=many')).rejects.toThrow(/--limits takes name=number pairs.*concurrentRequests=many/)
    await expect(cli('serve', '--limits', 'concurentRequests=2')).rejects.toThrow(/concurentRequests/)
  }, 60_000)
})

describe('svc-tts keys', () => {
  it('creates, lists and revokes keys, storing only hashes', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-tts-keys-'))
    const { stdout } = await cli('keys', 'create', '--name', 'reader', '--scopes', 'voices', '--data-dir', dataDir)
    const key = stdout.trim()
    expect(key).toMatch(/^sk_/)
    expect(readFileSync(path.join(dataDir, 'api-keys.json'), 'utf8')).not.toContain(key)
    const listed = (await cli('keys', 'list', '--data-dir', dataDir)).stdout.trim().split('\n')
    expect(listed.length).toBe(1)
    const [id, name, scopes] = listed[0]!.split(/\s+/)
    expect([name, scopes]).toEqual(['reader', 'voices'])
    await cli('keys', 'revoke', id!, '--data-dir', dataDir)
    expect((await cli('keys', 'list', '--data-dir', dataDir)).stdout.trim()).toBe('')
    await expect(cli('keys', 'create', '--scopes', 'admin', '--data-dir', dataDir)).rejects.toThrow(/unknown scope/)
  }, 60_000)
})
