/**
 * Pronunciation dictionaries over HTTP (the `voices` scope), rules as JSON or a W3C PLS file.
 *
 *   POST   /pronunciation_dictionaries                  { name, rules } -> the dictionary (version 1)
 *   POST   /pronunciation_dictionaries/pls?name=…       a PLS document (application/pls+xml) -> the dictionary
 *   GET    /pronunciation_dictionaries                  -> { dictionaries } (latest versions, without rules)
 *   GET    /pronunciation_dictionaries/:id?version=N    -> the dictionary (the latest without version)
 *   PUT    /pronunciation_dictionaries/:id              { name?, rules? } -> the next version
 *   DELETE /pronunciation_dictionaries/:id              -> 204
 *   GET    /pronunciation_dictionaries/:id/pls?version=N&xml_lang=…  -> application/pls+xml
 */
import * as z from 'zod'
import { TtsError } from '../errors.js'
import { parseWith, strictObject } from '../validation/parse.js'
import { createDictionarySchema, updateDictionarySchema } from '../voices/dictionaries/schemas.js'
import { route, type AnyRoute } from './routes.js'

/** 10 000 rules of a few hundred bytes each. */
const DICTIONARY_BODY_BYTES = 4 * 1024 * 1024
const PLS_TYPE = 'application/pls+xml'

const versionQuery = strictObject({ version: z.coerce.number().int().min(1).optional(), xml_lang: z.string().min(2).max(35).optional() })
const plsQuery = strictObject({ name: z.string().trim().min(1).max(128) })

/** The query's fields, checked once: unknown ones are refused like unknown body fields. */
function queryOf<S extends z.ZodType>(schema: S, query: URLSearchParams, what: string): z.output<S> {
  return parseWith(schema, Object.fromEntries(query), what)
}

const dictionaries = { scope: 'voices', versionRequired: false, concurrent: false } as const

export const DICTIONARY_ROUTES: readonly AnyRoute[] = [
  route({
    ...dictionaries,
    method: 'POST',
    path: '/pronunciation_dictionaries',
    body: { schema: createDictionarySchema, what: 'dictionary' },
    maxBodyBytes: DICTIONARY_BODY_BYTES,
    handle: async ({ engine, body }) => ({ status: 200, json: await engine.dictionaries.create(body) }),
  }),
  route<Buffer>({
    ...dictionaries,
    method: 'POST',
    path: '/pronunciation_dictionaries/pls',
    body: 'raw',
    maxBodyBytes: DICTIONARY_BODY_BYTES,
    handle: async ({ engine, body, query }) => {
      const { name } = queryOf(plsQuery, query, 'PLS upload query')
      if (!body || body.length === 0) throw new TtsError('INVALID_REQUEST', 'the body must be a PLS document (application/pls+xml)')
      return { status: 200, json: await engine.dictionaries.createFromPls(name, body.toString('utf8')) }
    },
  }),
  route({
    ...dictionaries,
    method: 'GET',
    path: '/pronunciation_dictionaries',
    handle: async ({ engine }) => ({ status: 200, json: { dictionaries: await engine.dictionaries.list() } }),
  }),
  route({
    ...dictionaries,
    method: 'GET',
    path: '/pronunciation_dictionaries/:dictionary_id',
    handle: async ({ engine, params, query }) => {
      const { version } = queryOf(versionQuery, query, 'dictionary query')
      return { status: 200, json: await engine.dictionaries.get(params.dictionary_id ?? '', version) }
    },
  }),
  route({
    ...dictionaries,
    method: 'PUT',
    path: '/pronunciation_dictionaries/:dictionary_id',
    body: { schema: updateDictionarySchema, what: 'dictionary update' },
    maxBodyBytes: DICTIONARY_BODY_BYTES,
    handle: async ({ engine, params, body }) => ({ status: 200, json: await engine.dictionaries.update(params.dictionary_id ?? '', body) }),
  }),
  route({
    ...dictionaries,
    method: 'DELETE',
    path: '/pronunciation_dictionaries/:dictionary_id',
    handle: async ({ engine, params }) => {
      await engine.dictionaries.delete(params.dictionary_id ?? '')
      return { status: 204, body: Buffer.alloc(0) }
    },
  }),
  route({
    ...dictionaries,
    method: 'GET',
    path: '/pronunciation_dictionaries/:dictionary_id/pls',
    handle: async ({ engine, params, query }) => {
      const { version, xml_lang: xmlLang } = queryOf(versionQuery, query, 'dictionary query')
      const pls = await engine.dictionaries.toPls(params.dictionary_id ?? '', version, xmlLang)
      return { status: 200, headers: { 'content-type': PLS_TYPE }, body: Buffer.from(pls, 'utf8') }
    },
  }),
]
