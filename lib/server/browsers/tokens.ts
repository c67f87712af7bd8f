/**
 * Browser tokens: what a page may hold instead of an `sk_` key. A key with the `tokens` scope
 * mints one (`POST /tokens`): `tk_` + the claims (base64url JSON) + `.` + their HMAC-SHA256 under
 * the service's token secret. A token names its key, its expiry (at most an hour), scopes narrowed
 * from the key's (never `tokens` itself), and optionally the one voice or model it may speak with.
 * Nothing is stored: a token is checked by its signature, its expiry, and its key, looked up at
 * each use, so revoking the key revokes its tokens at once. Replicas that must accept each other's
 * tokens share the secret (the `tokens.secret` option, SVC_TTS_TOKEN_SECRET for `svc-tts serve`).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import * as z from 'zod'
import { TtsError } from '../../errors.js'
import { strictObject } from '../../validation/parse.js'
import type { KeyStore, Principal, Scope } from '../keys.js'

export const TOKEN_PREFIX = 'tk_'
export const MAX_TOKEN_SECONDS = 3600
export const DEFAULT_TOKEN_SECONDS = 600
/** The scopes a token may carry: what a page needs, never the minting of more tokens or the metrics. */
export const TOKEN_SCOPES = ['text_to_speech', 'voices'] as const satisfies readonly Scope[]
export const TOKEN_SECRET_ENV = 'SVC_TTS_TOKEN_SECRET'

export const mintRequestSchema = strictObject({
  expires_in_seconds: z.number().int().min(1).max(MAX_TOKEN_SECONDS).optional(),
  scopes: z.array(z.enum(TOKEN_SCOPES)).min(1).optional(),
  voice_id: z.string().min(1).max(256).optional(),
  model_id: z.string().min(1).max(256).optional(),
})
export type MintRequest = z.infer<typeof mintRequestSchema>

export interface MintedToken {
  token: string
  expires_at: string
  scopes: Scope[]
  voice_id?: string
  model_id?: string
}

const claimsSchema = z.object({
  k: z.string().min(1),
  s: z.array(z.enum(TOKEN_SCOPES)),
  e: z.number().int(),
  v: z.string().optional(),
  m: z.string().optional(),
  n: z.string(),
})
type Claims = z.infer<typeof claimsSchema>

export class TokenIssuer {
  private readonly secret: Buffer

  constructor(
    private readonly keys: KeyStore,
    secret: string | undefined,
  ) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8')
  }

  /** A token for `principal`'s key: its scopes are those asked that the key has (at least one). */
  mint(principal: Principal, request: MintRequest, now = Date.now()): MintedToken {
    // A token bound to one voice or model only speaks: managing voices would reach past its binding.
    const bound = request.voice_id !== undefined || request.model_id !== undefined
    const asked = bound ? ['text_to_speech' as const] : (request.scopes ?? TOKEN_SCOPES)
    const scopes = asked.filter((scope) => principal.scopes.includes(scope))
    if (scopes.length === 0) throw new TtsError('INVALID_API_KEY', `the API key has none of the scopes asked (${asked.join(', ')})`)
    // Rounded up to the second: a token lives at least as long as asked, never up to a second less.
    const expires = Math.ceil(now / 1000) + (request.expires_in_seconds ?? DEFAULT_TOKEN_SECONDS)
    const claims: Claims = { k: principal.keyId, s: scopes, e: expires, ...(request.voice_id && { v: request.voice_id }), ...(request.model_id && { m: request.model_id }), n: randomBytes(9).toString('base64url') }
    const body = `${TOKEN_PREFIX}${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
    return {
      token: `${body}.${this.sign(body).toString('base64url')}`,
      expires_at: new Date(expires * 1000).toISOString(),
      scopes,
      ...(request.voice_id && { voice_id: request.voice_id }),
      ...(request.model_id && { model_id: request.model_id }),
    }
  }

  /** The token's principal, or INVALID_API_KEY (tampered, expired, or its key revoked). */
  verify(token: string, now = Date.now()): Principal {
    const dot = token.lastIndexOf('.')
    const body = token.slice(0, dot)
    const written = token.slice(dot + 1)
    const signature = Buffer.from(written, 'base64url')
    const expected = this.sign(body)
    // Only the one spelling of the signature: base64url's last character has bits a decoder drops, so another spelling would decode the same.
    const canonical = signature.toString('base64url') === written
    if (dot < 0 || !canonical || signature.length !== expected.length || !timingSafeEqual(signature, expected)) throw new TtsError('INVALID_API_KEY', 'the token is not valid')
    const claims = this.claims(body)
    if (claims.e * 1000 <= now) throw new TtsError('INVALID_API_KEY', 'the token has expired')
    const key = this.keys.principal(claims.k)
    if (!key) throw new TtsError('INVALID_API_KEY', 'the token\'s API key was revoked')
    return {
      keyId: key.keyId,
      // A scope the key lost since minting is lost by its tokens too.
      scopes: claims.s.filter((scope) => key.scopes.includes(scope)),
      ...((claims.v !== undefined || claims.m !== undefined) && { bound: { ...(claims.v !== undefined && { voiceId: claims.v }), ...(claims.m !== undefined && { modelId: claims.m }) } }),
    }
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body, 'utf8').digest()
  }

  private claims(body: string): Claims {
    try {
      return claimsSchema.parse(JSON.parse(Buffer.from(body.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8')))
    } catch {
      throw new TtsError('INVALID_API_KEY', 'the token is not valid')
    }
  }
}
