// LiveKit's Cartesia plugin pointed at svc-tts: its streaming synthesis (a pooled /tts/websocket,
// each sentence sent with continue: true, the turn ended by a blank transcript with continue:
// false, a chunk awaited within 5 s) and its one-shot synthesis (POST /tts/bytes) report audio
// frames of a plausible length. The plugin's one-shot path calls node:https whatever the base URL
// says, so it reaches the server through a loopback TLS terminator whose self-signed certificate
// (loopback-tls.pem, for 127.0.0.1) this process trusts.
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import net from 'node:net'
import tls from 'node:tls'
import { initializeLogger } from '@livekit/agents'
import { TTS } from '@livekit/agents-plugin-cartesia'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testEngine, voiceId } from '../../helpers/engine.js'
import { bounded, collect } from '../../helpers/livekit.js'
import { KEY, start, TEST_KEYS, type Running } from '../../helpers/server.js'

initializeLogger({ pretty: false, level: 'warn' })
const engine = await testEngine()
const PEM = readFileSync(new URL('loopback-tls.pem', import.meta.url), 'utf8')

/** A TLS terminator on loopback in front of `port`. */
async function tlsFront(port: number): Promise<tls.Server> {
  const front = tls.createServer({ key: PEM, cert: PEM }, (socket) => {
    const upstream = net.connect(port, '127.0.0.1')
    socket.pipe(upstream).pipe(socket)
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
  })
  front.listen(0, '127.0.0.1')
  await once(front, 'listening')
  return front
}

describe('LiveKit\'s Cartesia TTS against svc-tts', () => {
  let server: Running
  let front: tls.Server
  const options = { apiKey: KEY, model: 'sonic-3', voice: voiceId('Sarah'), sampleRate: 24000, language: 'en' }
  beforeAll(async () => {
    server = await start('standalone', { engine, keys: TEST_KEYS })
    front = await tlsFront(Number(new URL(server.base).port))
    https.globalAgent.options.ca = PEM
  })
  afterAll(async () => {
    front.close()
    await server.close()
  })

  it('stream: text pushed as an LLM writes it, spoken per sentence with word times, in two turns on one pooled socket', async () => {
    const tts = new TTS({ ...options, baseUrl: server.base })
    try {
      for (const turn of [['The birch canoe ', 'slid on the smooth planks. ', 'Glue the sheet ', 'to the dark blue background. ', 'It is easy to tell the depth of a well.'], ['A second turn follows on the same socket, as agents speak.']]) {
        const stream = tts.stream()
        for (const piece of turn) stream.pushText(piece)
        stream.endInput()
        const result = await bounded(collect(stream))
        const words = turn.join('').trim().split(/\s+/)
        expect(result.sampleRate).toBe(24000)
        expect(result.seconds).toBeGreaterThan(words.length * 0.15)
        expect(result.seconds).toBeLessThan(words.length * 0.8)
        expect(result.words).toEqual(words)
        stream.close()
      }
    } finally {
      await tts.close()
    }
  })

  it('synthesize: one sentence over POST /tts/bytes as frames at 24 kHz of a plausible length', async () => {
    const { port } = front.address() as net.AddressInfo
    const tts = new TTS({ ...options, baseUrl: `https://127.0.0.1:${port}` })
    try {
      const result = await bounded(collect(tts.synthesize('The birch canoe slid on the smooth planks.')))
      expect(result.sampleRate).toBe(24000)
      expect(result.frames).toBeGreaterThan(5)
      expect(result.seconds).toBeGreaterThan(1.2)
      expect(result.seconds).toBeLessThan(6)
    } finally {
      await tts.close()
    }
  })
})
