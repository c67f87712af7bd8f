export { createEngine, Engine } from './engine.js'
export type { CallOptions, EngineOptions, SpeechChunk, SpeechSession, TimestampedSpeech, VoiceBatch } from './engine.js'
export type { Alignment, TimedWord } from './alignment.js'
export { TtsError, isTtsError, ERROR_STATUS } from './errors.js'
export type { ErrorCode } from './errors.js'
export { ModelRegistry, DEFAULT_MODELS } from './models.js'
export type { ModelPack } from './models.js'
export { COMPRESSED_CONTAINERS, CONTAINERS, CONTENT_TYPES, ENCODINGS, SAMPLE_RATES, setFlacTotalSamples, wavHeader } from './audio/format.js'
export type { CompressedContainer, Container, Encoding, OutputFormat } from './audio/format.js'
export type { SynthesisRequest } from './schemas.js'
export {
  listVoicesSchema,
  outputFormatSchema,
  parseOutputFormat,
  parseSynthesisRequest,
  parseWith,
  synthesisRequestSchema,
} from './schemas.js'
export { LANGUAGES } from './text/types.js'
export type { Language } from './text/types.js'
export { PREDEFINED_VOICES } from './voices/predefined.js'
export { SqliteVoiceStore } from './voices/sqlite-store.js'
export type {
  ListVoicesOptions, NewVoice, StoredVoice, VoiceAnalysis, VoicePage, VoicePatch, VoiceRecord, VoiceRendering, VoiceSample, VoiceStore,
} from './voices/types.js'
export { packVoiceId } from './neural/voices.js'
export type { PackOptions, Device } from './neural/options.js'
export { readModelsDir, MODELS_FILE } from './neural/models-dir.js'
export { fixWavSizes, writeWavFile } from './audio/wav-file.js'
export type { WavSizes } from './audio/wav-file.js'
