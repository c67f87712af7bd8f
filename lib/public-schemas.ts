/**
 * `svc-tts/schemas` (also re-exported from the package root): the zod schemas the engine and the
 * service validate with, and the types inferred from them. It loads zod and nothing native, so a
 * gateway or a client can check requests with the very rules the engine applies.
 */
export { CONTAINERS, ENCODINGS, SAMPLE_RATES } from './audio/format.js'
export type { Container, Encoding, OutputFormat, SampleRate } from './audio/format.js'
export { TtsError, isTtsError, ERROR_STATUS } from './errors.js'
export type { ErrorCode } from './errors.js'
export type { ModelId } from './models.js'
export {
  cancelContextSchema,
  closeContextSchema,
  initializeConnectionSchema,
  textMessageSchema,
} from './realtime/messages.js'
export {
  outputFormatSchema,
  parseOutputFormat,
  parseSynthesisRequest,
  parseWith,
  sessionRequestSchema,
  speedSchema,
  SYNTHESIS_FIELD_CODES,
  synthesisRequestSchema,
  voiceSelectorSchema,
} from './schemas.js'
export type { OutputFormatRequest, SessionRequest, SynthesisRequest } from './schemas.js'
export { LANGUAGES } from './text/types.js'
export type { Language } from './text/types.js'
export {
  cloneRequestSchema,
  genderSchema,
  languageSchema,
  listVoicesSchema,
  voiceIdsSchema,
  voicePatchSchema,
  voiceTypeSchema,
} from './voices/schemas.js'
export type { CloneVoiceFields, Gender, ListVoicesOptions, VoicePatch, VoiceType } from './voices/schemas.js'
