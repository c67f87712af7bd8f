/**
 * The playground (GET /playground): a page where a person speaks text over the WebSocket, hears it
 * as it arrives, clones voices and deletes them. The page and its files are public; what it does
 * with the service goes through the usual key and scopes.
 */
import { TtsError } from '../../errors.js'
import { route, type AnyRoute, type RouteResponse } from '../routes.js'
import { playgroundFile } from './assets.js'

export const PLAYGROUND_PATH = '/playground'

const page = { method: 'GET', scope: null, versionRequired: false, concurrent: false } as const

/**
 * The page runs only its own files and talks only to its own server (the key it holds is worth
 * keeping there); blob: is its recordings and downloads, data: its empty icon.
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; media-src 'self' blob:; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

async function serveFile(name: string, headers: Record<string, string> = {}): Promise<RouteResponse> {
  const file = playgroundFile(name)
  if (!file) throw new TtsError('ROUTE_NOT_FOUND', `the playground has no file '${name.slice(0, 100)}'`)
  const { body, contentType } = await file
  // no-cache: a browser revalidates, so an upgraded package's page is never mixed with old modules.
  return { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', ...headers }, body }
}

export const PLAYGROUND_ROUTES: readonly AnyRoute[] = [
  // The page's own URLs are relative to /playground: /playground/ is sent there (relatively, so under a mount prefix too).
  route({ ...page, path: `${PLAYGROUND_PATH}/`, handle: async () => ({ status: 308, headers: { location: '../playground' }, body: Buffer.alloc(0) }) }),
  route({ ...page, path: PLAYGROUND_PATH, handle: () => serveFile('index.html', { 'content-security-policy': CONTENT_SECURITY_POLICY }) }),
  route({ ...page, path: `${PLAYGROUND_PATH}/assets/:file`, handle: ({ params }) => serveFile(params.file ?? '') }),
  route({
    method: 'GET',
    path: `${PLAYGROUND_PATH}/models`,
    scope: 'text_to_speech',
    versionRequired: false,
    concurrent: false,
    handle: async ({ engine }) => ({
      status: 200,
      json: { models: engine.models.list().map(({ id, description, languages }) => ({ id, description, languages })) },
    }),
  }),
]
