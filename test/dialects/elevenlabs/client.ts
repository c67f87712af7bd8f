/** The official ElevenLabs client against a test server, and readers for what it returns. */
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js'
import { KEY } from '../../helpers/server.js'

export function client(base: string, apiKey = KEY): ElevenLabsClient {
  // No retries: a refusal must reach the test as the SDK raises it, once.
  return new ElevenLabsClient({ baseUrl: base, apiKey, maxRetries: 0, timeoutInSeconds: 30 })
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part))
  return Buffer.concat(parts)
}

/** The parts of a stream as they arrive, with when each came (ms since the call). */
export async function readTimed(stream: ReadableStream<Uint8Array>, since: number): Promise<{ bytes: number; at: number }[]> {
  const parts: { bytes: number; at: number }[] = []
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push({ bytes: part.length, at: performance.now() - since })
  return parts
}
