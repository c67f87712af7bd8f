/** From sending a POST (on a new connection) to the first byte of its body; the body is read to its end. */
import { request } from 'node:http'

export interface FirstByteRequest {
  port: number
  path: string
  body: string
  headers?: Record<string, string>
}

export function httpFirstByte({ port, path, body, headers = {} }: FirstByteRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`${path}: status ${response.statusCode}`))
      let first: number | undefined
      response.on('data', () => (first ??= performance.now() - started))
      response.on('end', () => resolve(first!))
    })
    req.on('error', reject)
    req.end(body)
  })
}
