/**
 * `svc-tts/schemas`: the zod schemas the engine and the
 * service validate with, the gate's parse, and the types inferred from them. It loads zod and
 * nothing native, so a gateway or a client can check requests with the very rules the engine applies.
 */
export { CONTAINERS, ENCODINGS, SAMPLE_RATES } from '../audio/format.js'
export type { Container, Encoding, OutputFormat, SampleRate } from '../audio/format.js'
export { TtsError, isTtsError, ERROR_STATUS } from '../errors.js'
export type { ErrorCode } from '../errors.js'
export type { ModelId } from '../engine/models.js'
export {
  cancelContextSchema,
  closeContextSchema,
  initializeConnectionSchema,
  textMessageSchema,
} from '../realtime/messages.js'
export {
  formatIn,
  outputFormatSchema,
  speechSessionRequestSchema,
  speedSchema,
  SYNTHESIS_FIELD_CODES,
  synthesisRequestSchema,
  voiceSelectorSchema,
} from '../engine/requests.js'
export type { OutputFormatRequest, ParsedSpeechRequest, RequestedFormat, SpeechSessionRequest, SynthesisRequest } from '../engine/requests.js'
export { parseRequest } from '../engine/resolve.js'
export type { RequestKind, ResolvedRequest } from '../engine/resolve.js'
export { parseWith } from '../validation/parse.js'
export { PARSE_CHANNEL } from '../validation/parse-channel.js'
export { LANGUAGES } from '../text/types.js'
export type { Language } from '../text/types.js'
export {
  cloneRequestSchema,
  genderSchema,
  languageSchema,
  listVoicesSchema,
  voiceBatchRequestSchema,
  voiceIdsSchema,
  voicePatchSchema,
  voiceTypeSchema,
} from '../voices/schemas.js'
export type { CloneVoiceFields, Gender, ListVoicesOptions, VoicePatch, VoiceType } from '../voices/schemas.js'
