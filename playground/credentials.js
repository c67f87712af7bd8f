// How the page proves who it is. A loopback server that allows it mints a short-lived token
// (POST /playground/token): requests carry it as a bearer token, the WebSocket as access_token,
// and a 401 mints a new one once. Elsewhere the person gives an API key, kept in localStorage:
// requests carry x-api-key, the WebSocket api_key (as the SPEC says).

const KEY_STORAGE = 'svc-tts.playground.api-key'
const VERSION = 'v1'
/** A token this close to its expiry is renewed before a WebSocket is opened with it (a handshake's refusal cannot be read). */
const RENEW_BEFORE_MS = 30_000

/** A refusal from the service, with its JSON error body's code and message. */
export class ServiceError extends Error {
  constructor(code, message, status) {
    super(message)
    this.code = code
    this.status = status
  }
}

/** The error a failed response carries, from its JSON error body when it has one. */
export async function serviceError(response) {
  const body = await response.json().catch(() => undefined)
  if (body && typeof body.message === 'string') return new ServiceError(body.error_code ?? `HTTP_${response.status}`, body.message, response.status)
  return new ServiceError(`HTTP_${response.status}`, `the server answered ${response.status} ${response.statusText}`.trim(), response.status)
}

export class Credentials {
  #base
  #askKey
  #token
  #expiresAt = 0
  #key
  #renewal

  /**
   * @param base the service's root (the page's URL without /playground)
   * @param askKey (reason?: string) => Promise<string>, the person's API key
   */
  constructor(base, askKey) {
    this.#base = base
    this.#askKey = askKey
  }

  get mode() {
    return this.#token ? 'token' : 'key'
  }

  /** A token when the server mints one, else the stored key, else one the person gives. */
  async ready() {
    if (await this.#mint()) return
    this.#key = localStorage.getItem(KEY_STORAGE) ?? undefined
    if (!this.#key) await this.#newKey()
  }

  async #mint() {
    const response = await fetch(new URL('playground/token', this.#base), { method: 'POST' }).catch(() => undefined)
    if (!response?.ok) return false
    const body = await response.json().catch(() => undefined)
    if (typeof body?.token !== 'string') return false
    this.#token = body.token
    this.#expiresAt = Date.parse(body.expires_at) || Infinity
    return true
  }

  /** Renews a token about to expire; a key needs nothing. */
  async fresh() {
    if (this.#token && this.#expiresAt - Date.now() < RENEW_BEFORE_MS) await this.#mint()
  }

  async #newKey(reason) {
    this.#key = (await this.#askKey(reason)).trim()
    localStorage.setItem(KEY_STORAGE, this.#key)
  }

  #headers(credential) {
    return this.#token ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential }
  }

  /**
   * A request to the service with the credentials and the version; a 401 mints a new token once,
   * or asks for another key once. Throws a ServiceError for any failed response.
   */
  async fetch(path, init = {}) {
    const send = (credential) => fetch(new URL(path, this.#base), { ...init, headers: { version: VERSION, ...init.headers, ...this.#headers(credential) } })
    const used = this.#token ?? this.#key
    let response = await send(used)
    if (response.status === 401) {
      const refusal = await serviceError(response)
      if (!(await this.#replace(used, refusal.message))) throw refusal
      response = await send(this.#token ?? this.#key)
    }
    if (!response.ok) throw await serviceError(response)
    return response
  }

  /**
   * A new credential for one the service refused; requests refused together share one renewal
   * (one that was already replaced is simply retried). False when no new one can be had.
   */
  #replace(refused, reason) {
    if ((this.#token ?? this.#key) !== refused) return true
    this.#renewal ??= (this.#token ? this.#mint() : this.#newKey(reason).then(() => true)).finally(() => (this.#renewal = undefined))
    return this.#renewal
  }

  /** The WebSocket's URL at `path`, with the version and the credentials as query parameters. */
  socketUrl(path) {
    const url = new URL(path, this.#base)
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
    url.searchParams.set('version', VERSION)
    if (this.#token) url.searchParams.set('access_token', this.#token)
    else url.searchParams.set('api_key', this.#key)
    return url.href
  }
}
