/**
 * The floor of serving audio over HTTP on these cores: a bare node:http server that answers each
 * POST, once its body is read, with that body's audio in one write. The audio of each distinct
 * body is made once (by an engine in this process, on the body's first request, which the study's
 * warm-up sends) and kept, so what a request costs here is what any HTTP service pays to hand the
 * same bytes to a node:http client, with nothing of synthesis, validation, keys or logging.
 * It reports its port over IPC.
 */
import { createServer } from 'node:http'
import { createEngine } from '../../lib/index.js'

const engine = await createEngine()
const made = new Map<string, Promise<Buffer>>()

const server = createServer((request, response) => {
  const parts: Buffer[] = []
  request.on('data', (part: Buffer) => parts.push(part))
  request.on('end', () => {
    const body = Buffer.concat(parts).toString()
    let audio = made.get(body)
    if (!audio) made.set(body, (audio = engine.synthesize(JSON.parse(body))))
    audio.then(
      (bytes) => response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes),
      (error: Error) => response.writeHead(500).end(error.message),
    )
  })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 })
})
// The study stops it with SIGTERM; if the study dies first, its IPC channel closes.
process.on('disconnect', () => process.exit(0))
