/**
 * createEngine as the package root and the command line hand it out: the engine's modules (zod,
 * the text layer, the addon's loader) are imported on its first call, not when this one loads.
 */
import type { createEngine as create } from './create.js'

/** Loads the addon, starts its engines off the main thread, and returns a ready engine. */
export const createEngine: typeof create = async (options?: Parameters<typeof create>[0]) => {
  const { createEngine: createLoaded } = await import('./create.js')
  return createLoaded(options)
}
