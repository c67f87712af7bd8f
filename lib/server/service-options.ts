/** What a TtsService is made with: one schema, its defaults, and the types inferred from it. */
import * as z from 'zod'
import { Engine } from '../engine/engine.js'
import type { RealtimeLimits } from '../realtime/connection.js'
import { strictObject } from '../validation/parse.js'
import { corsOptionsSchema } from './browsers/cors.js'
import { dialectsOptionSchema } from './dialects/index.js'
import { KeyStore, type KeyConfig } from './keys.js'
import { limitsSchema, type Limiter } from './limits.js'
import type { UsageLedger } from './usage.js'
import type { AnyRoute } from './routes.js'

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
export const DEFAULT_MAX_CONCURRENT_UPLOADS = 8
export const DEFAULT_QUOTAS = { voicesPerKey: 100, sampleBytesPerKey: 256 * 1024 * 1024 } as const
/** Bytes queued on a WebSocket above which its contexts stop pulling audio. */
export const DEFAULT_SEND_BUFFER_BYTES = 512 * 1024
/** Unread output past the send buffer above which a WebSocket is closed (its default bound is the send buffer plus this). */
export const DEFAULT_UNREAD_MARGIN_BYTES = 4 * 1024 * 1024

/** The WebSocket's limits: per connection (RealtimeLimits), per key, and on the socket's unread output. */
export interface RealtimeOptions extends RealtimeLimits {
  /** Messages a second all of a key's connections may send together (default 1000). */
  keyMessagesPerSecond: number
  /** Their burst (default 2000). */
  keyMessageBurst: number
  /** Bytes a socket may hold unread before it is closed (default `sendBufferBytes` + 4 MiB; at least `sendBufferBytes`). */
  maxUnreadBytes: number
}

export interface RequestLog {
  request_id: string
  method: string
  path: string
  status: number
  duration_ms: number
  key_id?: string
  error_code?: string
}

export const serviceOptionsSchema = strictObject({
  /** The engine, or its promise: until it resolves (models loading) /readyz is 503 and requests get 503 SERVER_STARTING. */
  engine: z.union([z.instanceof(Engine), z.custom<Promise<Engine<string>>>((value) => value instanceof Promise)], { error: 'engine must be an Engine made by createEngine, or its promise' }),
  /** Keys as secrets or hashes, or a KeyStore; default: the SVC_TTS_API_KEYS environment variable. */
  keys: z.union([z.instanceof(KeyStore), z.array(z.custom<KeyConfig>((v) => typeof v === 'string' || (typeof v === 'object' && v !== null)))]).optional(),
  limiter: z.custom<Limiter>((v) => typeof v === 'object' && v !== null && 'acquire' in v && 'hit' in v && 'charge' in v, 'limiter must implement acquire, hit and charge').optional(),
  limits: limitsSchema.optional(),
  /** Where each key's requests and characters are recorded (PostgresUsage: the shared database). */
  usage: z.custom<UsageLedger>((v) => typeof v === 'object' && v !== null && 'record' in v, 'usage must implement record').optional(),
  realtime: z
    .object({
      maxContexts: z.number().int().min(1),
      maxContextChars: z.number().int().min(1),
      idleTimeoutMs: z.number().int().min(1),
      messagesPerSecond: z.number().positive(),
      messageBurst: z.number().int().min(1),
      maxQueuedMessages: z.number().int().min(1),
      maxQueuedBytes: z.number().int().min(1),
      keyMessagesPerSecond: z.number().positive(),
      keyMessageBurst: z.number().int().min(1),
      maxUnreadBytes: z.number().int().min(1),
    })
    .partial()
    .optional(),
  maxBodyBytes: z.number().int().min(1).optional(),
  /** Uploads (voice clones) in flight on this server, over every key: each holds its sample in memory. */
  maxConcurrentUploads: z.number().int().min(1).optional(),
  /** What one key may store: cloned voices, and the bytes of their samples. */
  quotas: z.object({ voicesPerKey: z.number().int().min(0).optional(), sampleBytesPerKey: z.number().int().min(0).optional() }).optional(),
  sendBufferBytes: z.number().int().min(1).optional(),
  /** Slow and idle connections on the servers svc-tts makes (lib/server/connections.ts). */
  connections: z
    .object({ headersTimeoutMs: z.number().int().min(1), requestTimeoutMs: z.number().int().min(1), maxConnections: z.number().int().min(1) })
    .partial()
    .optional(),
  /** The API dialects spoken beside the SPEC's (OpenAI, ElevenLabs, Cartesia): each on unless `false`, or its options. */
  dialects: dialectsOptionSchema.optional(),
  /** The playground page at GET /playground (lib/server/playground/): default off. */
  playground: z.boolean().optional(),
  /** More routes mounted beside the SPEC's text-to-speech and voice operations. */
  routes: z.array(z.custom<AnyRoute>((v) => typeof v === 'object' && v !== null && 'handle' in v, 'a route needs a handle function')).optional(),
  /** Prometheus metrics at GET /metrics (default on, behind a key with the `metrics` scope); `false` for none. */
  metrics: z.union([z.literal(false), strictObject({ public: z.boolean().optional(), processMetrics: z.boolean().optional() })]).optional(),
  /** Pages on other origins may call the service (default: none). */
  cors: corsOptionsSchema.optional(),
  /** Browser tokens: the secret they are signed with (default: random per service; share one between replicas), the key the playground's tokens are minted for on loopback. */
  tokens: strictObject({ secret: z.string().min(32).optional(), playgroundKey: z.string().min(1).optional() }).optional(),
  /** One structured entry per request. */
  log: z.custom<(entry: RequestLog) => void>((v) => typeof v === 'function', 'log must be a function').optional(),
})
export type ServiceOptions = z.input<typeof serviceOptionsSchema>
