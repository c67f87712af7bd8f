/**
 * `POST /tokens`: a key with the `tokens` scope mints a browser token. `POST /playground/token`:
 * the playground page's own token, minted for the configured key, only for a page the server
 * serves itself on loopback (same origin, from a loopback address): what `svc-tts serve` on
 * 127.0.0.1 offers so the page needs no key typed in.
 */
import { isIP } from 'node:net'
import { TtsError } from '../../errors.js'
import { header } from '../dialect.js'
import type { KeyStore } from '../keys.js'
import { route, type AnyRoute } from '../routes.js'
import { MAX_TOKEN_SECONDS, mintRequestSchema, type TokenIssuer } from './tokens.js'

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'))
}

/** A page's request comes from its own origin: a browser sends Origin on POST, and it must be this server. */
function sameOrigin(headers: Record<string, string | string[] | undefined>): boolean {
  const origin = header(headers, 'origin')
  const host = header(headers, 'host')
  return origin === undefined || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`))
}

export function tokenRoutes(issuer: TokenIssuer, keys: KeyStore, playgroundKey: string | undefined): AnyRoute[] {
  return [
    route({
      method: 'POST',
      path: '/tokens',
      scope: 'tokens',
      versionRequired: false,
      concurrent: false,
      body: { schema: mintRequestSchema.optional(), what: 'token request' },
      handle: async ({ principal, body }) => ({ status: 200, json: issuer.mint(principal!, body ?? {}) }),
    }),
    route({
      method: 'POST',
      path: '/playground/token',
      scope: null,
      versionRequired: false,
      concurrent: false,
      handle: async ({ remoteAddress, headers }) => {
        const key = playgroundKey === undefined ? undefined : keys.principal(playgroundKey)
        if (!key) throw new TtsError('ROUTE_NOT_FOUND', 'this server mints no playground tokens: enter an API key')
        if (!isLoopback(remoteAddress) || !sameOrigin(headers)) throw new TtsError('INVALID_API_KEY', 'playground tokens are minted only for the page this server serves on loopback')
        return { status: 200, headers: { 'cache-control': 'no-store' }, json: issuer.mint(key, { expires_in_seconds: MAX_TOKEN_SECONDS }) }
      },
    }),
  ]
}
