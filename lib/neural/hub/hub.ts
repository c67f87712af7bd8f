/**
 * The Hugging Face hub as huggingface_hub reaches it: files at `{endpoint}/{repo}/resolve/{revision}/{path}`,
 * listings at `{endpoint}/api/models/{repo}/tree/{revision}/{path}`, `HF_ENDPOINT` for a mirror and
 * `HF_TOKEN` sent as a Bearer token to the hub's own host only (never to the CDN it redirects to).
 */
import * as z from 'zod'
import { TtsError } from '../../errors.js'
import { parseWith } from '../../validation/parse.js'

export const DEFAULT_ENDPOINT = 'https://huggingface.co'

export interface HubOptions {
  /** The hub's base URL (default `HF_ENDPOINT`, else https://huggingface.co). */
  endpoint?: string
  /** A hub access token (default `HF_TOKEN`). */
  token?: string
}

export interface Hub {
  endpoint: string
  token: string | undefined
}

export function hubOf(options: HubOptions = {}): Hub {
  let endpoint = options.endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT
  while (endpoint.endsWith('/')) endpoint = endpoint.slice(0, -1)
  const token = options.token ?? (process.env.HF_TOKEN || undefined)
  return { endpoint, token }
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')

export function resolveUrl(hub: Hub, repo: string, revision: string, path: string): string {
  return `${hub.endpoint}/${repo}/resolve/${encodeURIComponent(revision)}/${encodePath(path)}`
}

/** Headers for a request to `url`: the token only where `url` is on the hub's own origin. */
export function hubHeaders(hub: Hub, url: string): Record<string, string> {
  return hub.token && new URL(url).origin === new URL(hub.endpoint).origin ? { authorization: `Bearer ${hub.token}` } : {}
}

/** A failed response as a TtsError: 401/403 point at HF_TOKEN, a 404 names what was missing. */
export function responseError(url: string, status: number): TtsError {
  const hint = status === 401 || status === 403 ? ' (a gated or private repository: set HF_TOKEN)' : ''
  return new TtsError('DOWNLOAD_FAILED', `${url} answered HTTP ${status}${hint}`, { extra: { status } })
}

export function networkError(url: string, cause: unknown): TtsError {
  if (cause instanceof TtsError) return cause
  const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause)
  return new TtsError('DOWNLOAD_FAILED', `${url}: ${reason}`, { cause })
}

/** GET a small JSON document (a catalogue, a listing) from the hub, redirects followed. */
export async function fetchHubJson<T>(hub: Hub, url: string, schema: z.ZodType<T>, what: string, signal?: AbortSignal): Promise<T> {
  let response: Response
  let text: string
  try {
    response = await fetch(url, { headers: hubHeaders(hub, url), ...(signal && { signal }) })
    text = await response.text()
  } catch (cause) {
    if (signal?.aborted) throw new TtsError('ABORTED', `fetching ${what} was aborted`, { cause })
    throw networkError(url, cause)
  }
  if (!response.ok) throw responseError(url, response.status)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    throw new TtsError('DOWNLOAD_FAILED', `${what} at ${url} is not JSON`, { cause })
  }
  try {
    return parseWith(schema, json, what)
  } catch (cause) {
    // A malformed document is the server's fault, not the caller's request.
    throw new TtsError('DOWNLOAD_FAILED', `${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

const treeEntrySchema = z.object({
  type: z.enum(['file', 'directory']),
  path: z.string(),
  size: z.number().int().min(0),
  lfs: z.object({ oid: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().min(0) }).optional(),
})
export type TreeEntry = z.infer<typeof treeEntrySchema>

/** The files of one folder of a repository, with sizes and, for large (LFS) files, their SHA-256. */
export function listTree(hub: Hub, repo: string, revision: string, folder: string, signal?: AbortSignal): Promise<TreeEntry[]> {
  const url = `${hub.endpoint}/api/models/${repo}/tree/${encodeURIComponent(revision)}/${encodePath(folder)}`
  return fetchHubJson(hub, url, z.array(treeEntrySchema), `the file list of ${repo}/${folder}`, signal)
}
