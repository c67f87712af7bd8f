// Issue 20, case 22: bad server options threw a raw zod dump; the Fastify plugin failed with a bare
// module-not-found without its peers, ignored `prefix`, and took over the app's 404 handler.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import Fastify from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { createEngine, TtsError } from '../../../lib/index.js'
import ttsPlugin from '../../../lib/server/fastify.js'
import { createTtsServer } from '../../../lib/server/index.js'
import { KEY, TEST_KEYS } from '../../helpers/server.js'

const root = path.resolve(import.meta.dirname, '../../..')
const engine = await createEngine()
afterAll(() => engine.close())

function thrown(work: () => unknown): unknown {
  try {
    work()
  } catch (error) {
    return error
  }
  return undefined
}

describe('server options', () => {
  it.each([
    ['no engine', {}, /engine/],
    ['a wrong limit', { engine, limits: { concurrentRequests: -1 } }, /limits\.concurrentRequests/],
    ['an unknown limit', { engine, limits: { concurentRequests: 4 } }, /did you mean 'concurrentRequests'/],
    ['an unknown option', { engine, maxBodyByte: 1 }, /did you mean 'maxBodyBytes'/],
    ['a key that is neither a secret nor a hash', { engine, keys: [{ name: 'x' }] }, /api key 0/],
    ['a realtime limit of zero', { engine, realtime: { maxContexts: 0 } }, /realtime\.maxContexts/],
  ])('%s is INVALID_REQUEST naming it', (_what, options, message) => {
    const error = thrown(() => createTtsServer(options as never))
    expect(error).toBeInstanceOf(TtsError)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', message })
  })
})

describe('the Fastify plugin', () => {
  it('reports bad options with a code', async () => {
    const app = Fastify()
    await expect(app.register(ttsPlugin, { engine, keys: TEST_KEYS, maxBodyBytes: -1 }).ready()).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
  })

  it('mounts under its prefix, and leaves the app\'s 404 handler the app\'s', async () => {
    const app = Fastify()
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ mine: true }))
    await app.register(ttsPlugin, { engine, keys: TEST_KEYS, prefix: '/tts' })
    const status = await app.inject({ method: 'GET', url: '/tts/', headers: { version: 'v1' } })
    expect(status.json()).toEqual({ status: 'ok', version: 'v1' })
    expect((await app.inject({ method: 'POST', url: '/tts/voices', headers: { 'x-api-key': KEY }, payload: {} })).statusCode).toBe(200)
    expect((await app.inject({ method: 'GET', url: '/', headers: { version: 'v1' } })).json()).toEqual({ mine: true })
    expect((await app.inject({ method: 'GET', url: '/tts/nothing' })).json()).toMatchObject({ error_code: 'ROUTE_NOT_FOUND' })
    await app.close()
  })

  it('at the root, the app\'s own 404 handler answers what the plugin does not serve', async () => {
    const app = Fastify()
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ mine: true }))
    await app.register(ttsPlugin, { engine, keys: TEST_KEYS })
    expect((await app.inject({ method: 'GET', url: '/nothing' })).json()).toEqual({ mine: true })
    await app.close()
  })

  it('without @fastify/websocket installed, fails with MISSING_DEPENDENCY naming it', () => {
    // A resolve hook makes the package missing, as in a project that did not install the peer.
    const hide = `data:text/javascript,${encodeURIComponent(`
      import { register } from 'node:module'
      register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
        if (specifier === '@fastify/websocket') { const error = new Error('not installed'); error.code = 'ERR_MODULE_NOT_FOUND'; throw error }
        return next(specifier, context)
      }\`))
    `)}`
    const result = spawnSync(process.execPath, ['--import', hide, '--import', 'tsx', '--input-type=module', '-e', `
      import Fastify from 'fastify'
      import { createEngine } from './lib/index.ts'
      import ttsPlugin from './lib/server/fastify.ts'
      const engine = await createEngine()
      const app = Fastify()
      try { await app.register(ttsPlugin, { engine, keys: ['sk_x'] }).ready(); console.log(JSON.stringify({ ok: true })) }
      catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })) }
      await engine.close()
    `], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    const outcome = JSON.parse(result.stdout.trim().split('\n').pop()!) as { code: string; message: string }
    expect(outcome.code).toBe('MISSING_DEPENDENCY')
    expect(outcome.message).toContain('npm install @fastify/websocket')
  })
})
