/**
 * The API dialects the service speaks beside the SPEC's own, each switched on or off (and
 * configured) by the service's `dialects` option. A dialect is routes and realtime endpoints that
 * translate its wire shapes onto the service's one path; none validates, looks up voices, limits
 * or streams on its own.
 */
import * as z from 'zod'
import { CARTESIA } from './cartesia/index.js'
import { ELEVENLABS } from './elevenlabs/index.js'
import type { DialectDefinition, DialectMount } from './definition.js'
import { OPENAI } from './openai/index.js'

/** Each dialect, in the order its routes are tried on a path two of them share. */
const DIALECTS: readonly DialectDefinition<any>[] = [OPENAI, ELEVENLABS, CARTESIA]  // eslint-disable-line @typescript-eslint/no-explicit-any

export const dialectsOptionSchema = z
  .object(Object.fromEntries(DIALECTS.map((dialect) => [dialect.name, z.union([z.boolean(), dialect.options]).optional()])))
  .strict()

export type DialectsOption = Record<string, unknown>

/** What every dialect switched on mounts (all of them unless switched off with `false`). */
export function mountDialects(option: DialectsOption = {}): DialectMount {
  const mounts = DIALECTS.flatMap((dialect) => {
    const given = option[dialect.name]
    if (given === false) return []
    return [dialect.mount(given === true || given === undefined ? dialect.options.parse({}) : given)]
  })
  return { routes: mounts.flatMap((m) => m.routes), realtime: mounts.flatMap((m) => m.realtime) }
}

/** The dialects' names, as `dialects` and `svc-tts serve --dialects` take them. */
export const DIALECT_NAMES: readonly string[] = DIALECTS.map((dialect) => dialect.name)
