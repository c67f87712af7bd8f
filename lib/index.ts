/**
 * The package root. Importing it loads no validation, text or native code: createEngine loads the
 * engine's modules on its first call, so a process that imports svc-tts and speaks later does not
 * pay for them at start. The zod schemas are in svc-tts/schemas, pulling packs in svc-tts/models.
 */
export { createEngine } from './engine/create-on-call.js'
export type { Engine, CallOptions, EngineOptions, SpeechChunk, SpeechSession, TimestampedSpeech, VoiceBatch } from './engine/engine.js'
export type { TimedMark } from './engine/speech-session.js'
export type { Dictionary, DictionaryRule, DictionarySummary } from './voices/dictionaries/types.js'
export type { CreateDictionary, DictionaryLocator, UpdateDictionary } from './voices/dictionaries/schemas.js'
export type { Alignment, TimedWord } from './engine/alignment.js'
export { ModelRegistry, DEFAULT_MODELS } from './engine/models.js'
export type { ModelEntry } from './engine/models.js'
export { CONTAINERS, COMPRESSED_CONTAINERS, CONTENT_TYPES, ENCODINGS, SAMPLE_RATES, setFlacTotalSamples, wavHeader } from './audio/format.js'
export type { CompressedContainer } from './audio/format.js'
export { TtsError, isTtsError, ERROR_STATUS } from './errors.js'
export { LANGUAGES } from './text/types.js'
export { PARSE_CHANNEL } from './validation/parse-channel.js'
export type * from './schemas/index.js'
export { PREDEFINED_VOICES } from './voices/predefined.js'
export { SqliteVoiceStore } from './voices/sqlite-store.js'
export type { NewVoice, StoredVoice, VoiceAnalysis, VoicePage, VoiceRecord, VoiceRendering, VoiceSample, VoiceStore } from './voices/types.js'
export { packVoiceId } from './neural/voices.js'
export type { PackOptions, Device } from './neural/options.js'
export { fixWavSizes, writeWavFile } from './audio/wav-file.js'
export { readWavHeader } from './audio/riff.js'
export type { WavHeader } from './audio/riff.js'
export type { WavSizes } from './audio/wav-file.js'
