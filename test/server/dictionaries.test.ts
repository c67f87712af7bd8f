/**
 * A request's pronunciation dictionaries over HTTP and the WebSocket: a rule `Nguyen -> wɪn`
 * gives the audio of `<phonemes>wɪn</phonemes>` in the word's place, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../helpers/engine.js'
import { ADAPTERS, KEY, post, start, TEST_KEYS, WsClient, type Running } from '../helpers/server.js'

const engine = await testEngine()
const RAW = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } as const
const request = (transcript: string, extra: Record<string, unknown> = {}) => ({
  model_id: 'svc_flash_v1.5' as const, transcript, voice: { mode: 'id' as const, id: voiceId('Sarah') }, output_format: RAW, ...extra,
})

describe('pronunciation dictionaries over HTTP and WebSocket', () => {
  let server: Running
  let id: string
  let expected: Buffer
  beforeAll(async () => {
    server = await start(ADAPTERS[0]!, { engine, keys: TEST_KEYS })
    id = (await engine.dictionaries.create({ name: 'Names', rules: [{ text: 'Nguyen', phonemes: 'wɪn' }] })).dictionary_id
    expected = await engine.synthesize(request('Hello Mister <phonemes>wɪn</phonemes>.'))
  })
  afterAll(() => server.close())

  it('POST /text_to_speech applies pronunciation_dictionaries', async () => {
    const response = await post(server.base, '/text_to_speech', request('Hello Mister Nguyen.', { pronunciation_dictionaries: [{ id }] }))
    expect(response.status).toBe(200)
    expect(Buffer.from(await response.arrayBuffer()).equals(expected)).toBe(true)
    const missing = await post(server.base, '/text_to_speech', request('Hello.', { pronunciation_dictionaries: [{ id: 'nope' }] }))
    expect([missing.status, ((await missing.json()) as { error_code: string }).error_code]).toEqual([404, 'DICTIONARY_NOT_FOUND'])
  })

  it('manages dictionaries: JSON rules, a new version on PUT, the list, DELETE', async () => {
    const created = (await (await post(server.base, '/pronunciation_dictionaries', { name: 'Team', rules: [{ text: 'Siobhan', phonemes: 'ʃɪˈvɔːn' }] })).json()) as { dictionary_id: string; version: number }
    expect(created.version).toBe(1)
    const base = `${server.base}/pronunciation_dictionaries/${created.dictionary_id}`
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' }
    const put = await fetch(base, { method: 'PUT', headers, body: JSON.stringify({ rules: [{ text: 'Siobhan', alias: 'Shivawn' }] }) })
    expect(((await put.json()) as { version: number }).version).toBe(2)
    expect(((await (await fetch(`${base}?version=1`, { headers })).json()) as { rules: unknown[] }).rules).toEqual([{ text: 'Siobhan', phonemes: 'ʃɪˈvɔːn' }])
    const list = (await (await fetch(`${server.base}/pronunciation_dictionaries`, { headers })).json()) as { dictionaries: { dictionary_id: string; version: number }[] }
    expect(list.dictionaries.find((d) => d.dictionary_id === created.dictionary_id)?.version).toBe(2)
    expect((await fetch(base, { method: 'DELETE', headers })).status).toBe(204)
    expect((await fetch(base, { headers })).status).toBe(404)
    expect((await post(server.base, '/pronunciation_dictionaries', { name: 'Bad', rules: [{ text: 'x', phonemes: 'X' }] })).status).toBe(400)
  })

  it('takes a PLS upload and gives it back: the file round-trips', async () => {
    const pls = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>Nguyen</grapheme><grapheme>Nguyễn</grapheme><phoneme>wɪn</phoneme></lexeme>
  <lexeme><grapheme>W3C</grapheme><alias>World Wide Web Consortium</alias></lexeme>
  <lexeme><grapheme>AT&amp;T</grapheme><alias>A T and T</alias></lexeme>
</lexicon>`
    const upload = (body: string) => fetch(`${server.base}/pronunciation_dictionaries/pls?name=Imported`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/pls+xml' }, body })
    const created = (await (await upload(pls)).json()) as { dictionary_id: string; rules: unknown[] }
    expect(created.rules).toEqual([
      { text: 'Nguyen', phonemes: 'wɪn' }, { text: 'Nguyễn', phonemes: 'wɪn' },
      { text: 'W3C', alias: 'World Wide Web Consortium' }, { text: 'AT&T', alias: 'A T and T' },
    ])
    const exported = await fetch(`${server.base}/pronunciation_dictionaries/${created.dictionary_id}/pls`, { headers: { 'x-api-key': KEY } })
    expect(exported.headers.get('content-type')).toBe('application/pls+xml')
    const text = await exported.text()
    const again = (await (await upload(text)).json()) as { rules: unknown[] }
    expect(again.rules).toEqual(created.rules)
    const said = await post(server.base, '/text_to_speech', request('Mister Nguyễn of W3C.', { pronunciation_dictionaries: [{ id: created.dictionary_id }] }))
    expect(Buffer.from(await said.arrayBuffer()).equals(await engine.synthesize(request('Mister <phonemes>wɪn</phonemes> of World Wide Web Consortium.')))).toBe(true)
    for (const bad of ['<!DOCTYPE lexicon [<!ENTITY x "y">]><lexicon/>', '<lexicon alphabet="x-sampa"><lexeme><grapheme>a</grapheme><phoneme>@</phoneme></lexeme></lexicon>', '<lexicon><lexeme><grapheme>a</grapheme></lexeme></lexicon>', 'not xml']) {
      const refused = await upload(bad)
      expect([refused.status, ((await refused.json()) as { error_code: string }).error_code]).toEqual([400, 'INVALID_MARKUP'])
    }
  })

  it('a WebSocket connection applies the dictionaries its first message names', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    const { transcript: _, ...init } = request('', { pronunciation_dictionaries: [{ id }] })
    client.send(init)
    client.send({ context_id: 'c', transcript: 'Hello Mister ' })
    client.send({ context_id: 'c', transcript: 'Nguyen. ' })
    client.send({ context_id: 'c', close_context: true, transcript: '' })
    await client.until(() => client.of('c').filter((event) => event.final === true).length === 2)
    expect(client.audio('c').equals(expected)).toBe(true)
    client.socket.close()
  })

  it('a WebSocket context may name its own dictionaries', async () => {
    const client = await WsClient.connect(`${server.ws}/text_to_speech/websocket/ws?api_key=${KEY}&version=v1`)
    const { transcript: _, ...init } = request('')
    client.send(init)
    client.send({ context_id: 'plain', transcript: 'Hello Mister Nguyen. ' })
    client.send({ context_id: 'named', transcript: 'Hello Mister Nguyen. ', pronunciation_dictionaries: [{ id }] })
    for (const context of ['plain', 'named']) client.send({ context_id: context, close_context: true, transcript: '' })
    await client.until(() => ['plain', 'named'].every((context) => client.of(context).filter((event) => event.final === true).length === 2))
    expect(client.audio('named').equals(expected)).toBe(true)
    expect(client.audio('plain').equals(await engine.synthesize(request('Hello Mister Nguyen.')))).toBe(true)
    client.socket.close()
  })
})
