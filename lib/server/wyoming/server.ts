/**
 * The Wyoming server: Home Assistant's protocol for voice services, on `tcp://host:port`,
 * `unix://path` or `stdio://`, as the reference servers take them. Wyoming has no keys: a TCP
 * server binds to loopback by default, says so when bound elsewhere, and may admit only the
 * client addresses of an allow-list.
 */
import { lstatSync, unlinkSync } from 'node:fs'
import { BlockList, createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net'
import * as z from 'zod'
import { Engine } from '../../engine/engine.js'
import { TtsError } from '../../errors.js'
import { parseWith, strictObject } from '../../validation/parse.js'
import { WyomingConnection, type ObservedSynthesis, type WyomingLog } from './connection.js'
import { DEFAULT_FRAME_LIMITS } from './framing.js'
import { WyomingVoices } from './voices.js'

export const DEFAULT_WYOMING_PORT = 10200
export const DEFAULT_WYOMING_URI = `tcp://127.0.0.1:${DEFAULT_WYOMING_PORT}`

const wyomingOptionsSchema = strictObject({
  /** `tcp://host:port` (default tcp://127.0.0.1:10200), `unix://path` or `stdio://`. */
  uri: z.string().optional(),
  /** Client addresses (or subnets, `192.168.1.0/24`) a TCP server admits; default: any that reaches it. */
  allow: z.array(z.string().min(1)).optional(),
  /** The voice of a synthesis that names none: a voice name or a language code (default: the first voice, Sarah). */
  defaultVoice: z.string().min(1).optional(),
  /** Samples in each audio-chunk (the reference servers send 1024). */
  samplesPerChunk: z.number().int().min(64).max(65536).optional(),
  /** Bounds on one event a client sends. */
  limits: z
    .object({ maxHeaderBytes: z.number().int().min(64), maxDataBytes: z.number().int().min(0), maxPayloadBytes: z.number().int().min(0) })
    .partial()
    .optional(),
  /** A stream's text waiting to be spoken before the connection stops reading, and its longest unfinished sentence (default 10 000 characters). */
  maxPendingChars: z.number().int().min(1).optional(),
  /** Connections open at once; more are refused (default 256). */
  maxConnections: z.number().int().min(1).optional(),
  /** One structured entry per synthesis. */
  log: z.custom<(entry: WyomingLog) => void>((v) => typeof v === 'function', 'log must be a function').optional(),
  /** A host's watch over each synthesis (a TtsService's `observeSynthesis`: its metrics and spans). */
  observe: z.custom<(event: WyomingLog['event'], signal: AbortSignal) => ObservedSynthesis>((v) => typeof v === 'function', 'observe must be a function').optional(),
  /** Where warnings go (binding beyond loopback); default process.emitWarning. */
  onWarning: z.custom<(message: string) => void>((v) => typeof v === 'function', 'onWarning must be a function').optional(),
})

export type WyomingServerOptions = z.input<typeof wyomingOptionsSchema>

export interface WyomingServer {
  /** Where it listens: `tcp://host:port` (with the port chosen for port 0), `unix://path`, `stdio://`. */
  readonly url: string
  /** Connections open now. */
  readonly connections: number
  /**
   * Stops listening; lets the syntheses under way finish for up to `deadlineMs` (default 0), each
   * connection closing once its own is sent; then closes the rest, cancelling their syntheses.
   */
  close(deadlineMs?: number): Promise<void>
}

type Endpoint = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string } | { kind: 'stdio' }

function endpointOf(uri: string): Endpoint {
  if (uri === 'stdio://') return { kind: 'stdio' }
  if (uri.startsWith('unix://') && uri.length > 'unix://'.length) return { kind: 'unix', path: uri.slice('unix://'.length) }
  if (uri.startsWith('tcp://')) {
    let url: URL | undefined
    try {
      url = new URL(uri)
    } catch {
      url = undefined
    }
    const host = url?.hostname.replace(/^\[(.*)\]$/, '$1')
    const port = url?.port === '' ? DEFAULT_WYOMING_PORT : Number(url?.port)
    if (url && host && url.pathname === '' && Number.isInteger(port) && port >= 0 && port <= 65535) return { kind: 'tcp', host, port }
  }
  throw new TtsError('INVALID_REQUEST', `Wyoming uri '${uri}' is not tcp://host:port, unix://path or stdio://`)
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

function allowList(entries: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/')
    const family = isIP(address)
    if (family === 0 || (prefix !== undefined && !/^\d+$/.test(prefix))) {
      throw new TtsError('INVALID_REQUEST', `Wyoming allow entry '${entry}' is not an IP address or a subnet (address/prefix)`)
    }
    const type = family === 6 ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return list
}

function admitted(list: BlockList, socket: Socket): boolean {
  const address = socket.remoteAddress
  if (!address) return false
  // An IPv4 client of a dual-stack socket comes as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  return mapped ? list.check(mapped, 'ipv4') : list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path)
  } catch {
    // Nothing there: nothing to remove.
  }
}

/** Starts a Wyoming server on `engine`; resolves once it listens. */
export async function createWyomingServer(engine: Engine<string>, options: WyomingServerOptions = {}): Promise<WyomingServer> {
  if (!(engine instanceof Engine)) throw new TtsError('INVALID_REQUEST', 'engine must be an Engine made by createEngine')
  const checked = parseWith(wyomingOptionsSchema, options, 'Wyoming server options')
  const endpoint = endpointOf(checked.uri ?? DEFAULT_WYOMING_URI)
  const allowed = checked.allow && allowList(checked.allow)
  // A default voice that names nothing is a mistake of the server's, told now rather than to each client.
  if (checked.defaultVoice !== undefined) (await WyomingVoices.of(engine)).find(undefined, checked.defaultVoice)
  const connections = new Set<WyomingConnection>()
  const connectionOptions = {
    engine,
    limits: { ...DEFAULT_FRAME_LIMITS, ...checked.limits },
    samplesPerChunk: checked.samplesPerChunk ?? 1024,
    maxPendingChars: checked.maxPendingChars ?? 10_000,
    ...(checked.defaultVoice !== undefined && { defaultVoice: checked.defaultVoice }),
    ...(checked.log && { log: checked.log }),
    ...(checked.observe && { observe: checked.observe }),
  }
  const track = (connection: WyomingConnection) => {
    connections.add(connection)
    void connection.closed.then(() => connections.delete(connection))
  }
  const closeAll = async (deadlineMs = 0) => {
    const open = [...connections]
    for (const connection of open) connection.closeWhenIdle()
    const finished = Promise.all(open.map((connection) => connection.closed))
    let timer: NodeJS.Timeout | undefined
    if (deadlineMs > 0) await Promise.race([finished, new Promise((resolve) => (timer = setTimeout(resolve, deadlineMs)))])
    clearTimeout(timer)
    for (const connection of open) connection.close()
    await finished
  }

  if (endpoint.kind === 'stdio') {
    track(new WyomingConnection(process.stdin, process.stdout, { ...connectionOptions, client: 'stdio' }))
    return { url: 'stdio://', get connections() { return connections.size }, close: closeAll }
  }

  const server: Server = createServer({ allowHalfOpen: false }, (socket) => {
    if (allowed && !admitted(allowed, socket)) {
      socket.destroy()
      return
    }
    socket.setNoDelay(true)
    const client = endpoint.kind === 'tcp' ? `${socket.remoteAddress}:${socket.remotePort}` : endpoint.path
    track(new WyomingConnection(socket, socket, { ...connectionOptions, client }))
  })
  server.maxConnections = checked.maxConnections ?? 256
  if (endpoint.kind === 'unix') removeStaleSocket(endpoint.path)
  await new Promise<void>((resolve, reject) => {
    server.once('error', (cause: Error) => reject(new TtsError('IO_FAILED', `the Wyoming server cannot listen on ${checked.uri ?? DEFAULT_WYOMING_URI}: ${cause.message}`, { cause })))
    const listening = () => {
      server.off('error', reject)
      resolve()
    }
    if (endpoint.kind === 'tcp') server.listen(endpoint.port, endpoint.host, listening)
    else server.listen(endpoint.path, listening)
  })
  let url = `unix://${endpoint.kind === 'unix' ? endpoint.path : ''}`
  if (endpoint.kind === 'tcp') {
    const { port } = server.address() as AddressInfo
    url = `tcp://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${port}`
    if (!isLoopback(endpoint.host)) {
      const who = allowed ? `only the clients of its allow list (${checked.allow!.join(', ')})` : 'any client that reaches it (see the allow option)'
      ;(checked.onWarning ?? ((message: string) => process.emitWarning(message)))(`Wyoming has no authentication: the Wyoming server on ${url} speaks for ${who}`)
    }
  }
  return {
    url,
    get connections() {
      return connections.size
    },
    close: async (deadlineMs) => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      await closeAll(deadlineMs)
      await stopped
    },
  }
}
