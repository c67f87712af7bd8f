/**
 * A request's target (the URL of its request line, or of a WebSocket upgrade) read once and safely:
 * one that no URL parser accepts, or whose path holds a malformed percent-escape, is a 400
 * INVALID_REQUEST, never a URIError or TypeError thrown where nothing catches it. Every adapter
 * and every upgrade reads its target here.
 */
import { TtsError } from '../errors.js'

export interface Target {
  /** The path's segments, percent-decoded. */
  segments: string[]
  /** The path as sent (still percent-encoded): what logs show. */
  pathname: string
  /** Whether the path ends with a slash after a segment (`/playground/`). */
  trailingSlash: boolean
  query: URLSearchParams
}

export function parseTarget(raw: string | undefined): Target {
  let url: URL
  try {
    url = new URL(raw ?? '/', 'http://localhost')
  } catch {
    throw new TtsError('INVALID_REQUEST', 'the request target is not a URL')
  }
  const segments = url.pathname.split('/').filter(Boolean)
  try {
    return { segments: segments.map((segment) => decodeURIComponent(segment)), pathname: url.pathname, trailingSlash: segments.length > 0 && url.pathname.endsWith('/'), query: url.searchParams }
  } catch {
    throw new TtsError('INVALID_REQUEST', 'the request path holds a malformed percent-escape')
  }
}

/**
 * Matches a target against a route path (`/voices/:voice_id`): its parameters, or undefined. A
 * trailing slash is ignored, except by a route path that ends with one, which matches only a
 * target that does.
 */
export function matchPath(routePath: string, target: Target): Record<string, string> | undefined {
  const pattern = routePath.split('/').filter(Boolean)
  if (pattern.length !== target.segments.length) return undefined
  if (pattern.length > 0 && routePath.endsWith('/') && !target.trailingSlash) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!
    const segment = target.segments[i]!
    if (expected.startsWith(':')) params[expected.slice(1)] = segment
    else if (expected !== segment) return undefined
  }
  return params
}

/** What a log line shows of a target: its path, never its query (a key may be there, however it is spelt). */
export function loggedPath(raw: string | undefined): string {
  try {
    return parseTarget(raw).pathname
  } catch {
    return '(unreadable target)'
  }
}
