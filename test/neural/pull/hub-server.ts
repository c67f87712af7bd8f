/**
 * A local stand-in for the Hugging Face hub, on 127.0.0.1, with the real hub's URL layout and
 * headers: `/{repo}/resolve/{revision}/{path}` answers a small file itself (etag) and a large (LFS)
 * one with a 302 to a second server (the CDN) carrying `x-linked-etag` (its SHA-256),
 * `x-linked-size` and `x-repo-commit`; `/api/models/{repo}/tree/{revision}/{folder}` lists files.
 * The CDN honours Range. Tests cut, corrupt and count what it serves.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { FIXTURES } from '../fixtures.js'

export interface HubFile {
  repo: string
  revision: string
  path: string
  body: Buffer
  lfs: boolean
}

export interface HubRequest {
  server: 'hub' | 'cdn'
  path: string
  range: string | undefined
  authorization: string | undefined
}

export const COMMIT = 'f0e1d2c3b4a5968778695a4b3c2d1e0f00112233'
const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex')
const md5 = (body: Buffer) => createHash('md5').update(body).digest('hex')
const gitSha1 = (body: Buffer) => createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex')

export const PIPER_VOICE = 'en_US-fixture-medium'
export const PIPER_VOICE_DIR = 'en/en_US/fixture/medium'
const KOKORO_REPO = 'onnx-community/Kokoro-82M-v1.0-ONNX'

/** The hand-written copy of real voices.json entries, plus the fixture voice in the same schema. */
export function hubFiles(): HubFile[] {
  const piperFile = (name: string, lfs: boolean): HubFile => ({
    repo: 'rhasspy/piper-voices', revision: 'v1.0.0', path: `${PIPER_VOICE_DIR}/${name}`, body: readFileSync(path.join(FIXTURES, name)), lfs,
  })
  const model = piperFile(`${PIPER_VOICE}.onnx`, true)
  const config = piperFile(`${PIPER_VOICE}.onnx.json`, false)
  const card: HubFile = { ...config, path: `${PIPER_VOICE_DIR}/MODEL_CARD`, body: Buffer.from('# Model card for fixture (medium)\n'), lfs: false }
  const catalogue = JSON.parse(readFileSync(path.join(FIXTURES, '../models/voices.json'), 'utf8')) as Record<string, unknown>
  catalogue[PIPER_VOICE] = {
    key: PIPER_VOICE, name: 'fixture',
    language: { code: 'en_US', family: 'en', region: 'US', name_native: 'English', name_english: 'English', country_english: 'United States' },
    quality: 'medium', num_speakers: 1, speaker_id_map: {},
    files: Object.fromEntries([model, config, card].map((f) => [f.path, { size_bytes: f.body.length, md5_digest: md5(f.body) }])),
    aliases: [],
  }
  const voicesJson: HubFile = { repo: 'rhasspy/piper-voices', revision: 'v1.0.0', path: 'voices.json', body: Buffer.from(JSON.stringify(catalogue, null, 4)), lfs: false }
  const kokoro = (remote: string, local: string): HubFile => ({
    repo: KOKORO_REPO, revision: 'main', path: remote, body: readFileSync(path.join(FIXTURES, 'kokoro', local)), lfs: true,
  })
  return [
    voicesJson, model, config, card,
    kokoro('onnx/model.onnx', 'model.onnx'),
    kokoro('onnx/model_quantized.onnx', 'model.onnx'),
    kokoro('voices/af_heart.bin', 'voices/af_heart.bin'),
    kokoro('voices/am_michael.bin', 'voices/am_michael.bin'),
    { repo: KOKORO_REPO, revision: 'main', path: 'config.json', body: Buffer.from('{"model_type":"style_text_to_speech_2"}'), lfs: false },
  ]
}

export interface LocalHub {
  url: string
  cdnUrl: string
  files: HubFile[]
  requests: HubRequest[]
  /** The next CDN answer for `file` sends only its first `bytes` bytes and holds the connection open until dropCut(). */
  cutNext(file: string, bytes: number): void
  /** Drops the connections cutNext held: the client finds the body short. */
  dropCut(): void
  /** The CDN serves `file` with one byte changed from now on (the hub's headers still give the true digest). */
  corrupt(file: string, at: number): void
  /** The hub answers 401 without this Bearer token. */
  requireToken(token: string): void
  close(): Promise<void>
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))
}

function sendRange(request: IncomingMessage, response: ServerResponse, body: Buffer, headers: Record<string, string>, cut: number | undefined, held: ServerResponse[]): void {
  const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '')
  const start = range ? Number(range[1]) : 0
  if (range && start >= body.length) {
    response.writeHead(416, { 'content-range': `bytes */${body.length}` }).end()
    return
  }
  const slice = body.subarray(start)
  response.writeHead(range ? 206 : 200, {
    ...headers, 'accept-ranges': 'bytes', 'content-length': String(slice.length),
    ...(range && { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` }),
  })
  if (cut === undefined) {
    response.end(slice)
    return
  }
  response.write(slice.subarray(0, cut))
  held.push(response)
}

export async function startHub(files: HubFile[] = hubFiles()): Promise<LocalHub> {
  const requests: HubRequest[] = []
  const cuts = new Map<string, number>()
  const corrupted = new Map<string, Buffer>()
  const held: ServerResponse[] = []
  let token: string | undefined
  const blobs = new Map(files.filter((f) => f.lfs).map((f) => [sha256(f.body), f]))
  const record = (server: 'hub' | 'cdn', request: IncomingMessage) =>
    requests.push({ server, path: decodeURI(request.url ?? ''), range: request.headers.range, authorization: request.headers.authorization })

  const cdn = createServer((request, response) => {
    record('cdn', request)
    const file = blobs.get(/^\/blobs\/([0-9a-f]{64})/.exec(request.url ?? '')?.[1] ?? '')
    if (!file) return void response.writeHead(404).end()
    const cut = cuts.get(file.path)
    cuts.delete(file.path)
    sendRange(request, response, corrupted.get(file.path) ?? file.body, { 'content-type': 'application/octet-stream', etag: `"${sha256(file.body)}"` }, cut, held)
  })
  const cdnUrl = await listen(cdn)

  const hub = createServer((request, response) => {
    record('hub', request)
    if (token && request.headers.authorization !== `Bearer ${token}`) return void response.writeHead(401).end('{"error":"Invalid credentials"}')
    const url = decodeURIComponent(new URL(request.url ?? '/', 'http://hub').pathname)
    const tree = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)\/(.+)$/.exec(url)
    if (tree) {
      const [, repo, revision, folder] = tree
      const listed = files.filter((f) => f.repo === repo && f.revision === revision && path.posix.dirname(f.path) === folder)
      const body = listed.map((f) => ({
        type: 'file', oid: gitSha1(f.body), size: f.body.length, path: f.path,
        ...(f.lfs && { lfs: { oid: sha256(f.body), size: f.body.length, pointerSize: 134 } }),
      }))
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    }
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url)
    const file = resolve && files.find((f) => f.repo === resolve[1] && f.revision === resolve[2] && f.path === resolve[3])
    if (!file) return void response.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end()
    if (file.lfs) {
      const digest = sha256(file.body)
      return void response.writeHead(302, {
        location: `${cdnUrl}/blobs/${digest}?response-content-disposition=attachment`,
        'x-linked-etag': `"${digest}"`, 'x-linked-size': String(file.body.length), 'x-repo-commit': COMMIT, etag: `"${gitSha1(file.body)}"`,
      }).end()
    }
    sendRange(request, response, file.body, { etag: `"${gitSha1(file.body)}"`, 'x-repo-commit': COMMIT }, undefined, held)
  })
  const url = await listen(hub)

  return {
    url, cdnUrl, files, requests,
    cutNext: (file, bytes) => void cuts.set(file, bytes),
    dropCut: () => { for (const response of held.splice(0)) response.socket?.end() },
    corrupt: (file, at) => {
      const body = Buffer.from(files.find((f) => f.path === file)!.body)
      body[at] = body[at]! ^ 0xff
      corrupted.set(file, body)
    },
    requireToken: (value) => { token = value },
    close: async () => {
      for (const server of [hub, cdn]) {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
    },
  }
}
