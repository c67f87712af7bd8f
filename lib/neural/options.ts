/**
 * What a user writes to put a neural model pack behind a model id:
 * `createEngine({ models: { 'svc_pro_v1.0': { type: 'piper', path: '/voices/x.onnx' } }, device })`.
 */
import * as z from 'zod'

const gender = z.enum(['Male', 'Female'])

/**
 * Both pack types: run the model's 1-D convolutions as 2-D ones over a height-1 view (default
 * true). The same arithmetic in ONNX Runtime's faster 2-D kernels; false loads the file as it is.
 */
const liftConvolutions = z.boolean().optional()

/**
 * Both pack types: keep the rewritten model (lifted, cut before the vocoder) and what the checks
 * of it found in the user's cache directory, so the next load of the same file reads them instead
 * of making them again (default true; docs/neural-packs.md, "Load cache").
 */
const cache = z.boolean().optional()

export const piperPackSchema = z.object({
  type: z.literal('piper'),
  /** The voice's .onnx file; its config is the same path plus .json unless `config` names it. */
  path: z.string().min(1),
  config: z.string().min(1).optional(),
  /** Piper configs do not say who speaks: give a gender per speaker name (or 'default' for a single voice). */
  genders: z.record(z.string(), gender).optional(),
  /**
   * Where the model can be cut before its vocoder (official Piper exports), a request's first
   * audio comes from a short window of the vocoder instead of the whole first chunk (default
   * true). The audio is the same either way; false runs every chunk whole.
   */
  windowedVocoder: z.boolean().optional(),
  liftConvolutions,
  cache,
})

export const kokoroPackSchema = z.object({
  type: z.literal('kokoro'),
  /** A directory: model.onnx (or onnx/model.onnx), voices/<name>.bin, optionally config.json or tokenizer.json. */
  path: z.string().min(1),
  /** Extra voices blended from the pack's styles: name -> { style name: weight }. */
  blends: z.record(z.string().regex(/^[\w-]+$/), z.record(z.string(), z.number().positive())).optional(),
  liftConvolutions,
  cache,
})

export const packOptionsSchema = z.discriminatedUnion('type', [piperPackSchema, kokoroPackSchema])
export type PackOptions = z.infer<typeof packOptionsSchema>

export const modelPacksSchema = z.record(z.string().min(1), packOptionsSchema)
export const deviceSchema = z.enum(['auto', 'cpu', 'cuda'])
export type Device = z.infer<typeof deviceSchema>
