/**
 * The voice library: every operation of the SPEC's voice API over a voice store, cloning with its
 * calibration, previews, and the fits of cloned voices to neural pack voices. Speech itself is the
 * engine's: the library is handed a renderer for the calibration text and the previews.
 */
import { abortable, TtsError } from '../errors.js'
import type { NativeAddon } from '../native.js'
import type { BackendKind, Language } from '../text/types.js'
import { parseWith } from '../validation/parse.js'
import { analyseSample, fitPackTuning, fitRendering, inferGender, toAnalysis } from './clone.js'
import { PreviewCache, previewText } from './preview.js'
import { cloneRequestSchema, listVoicesSchema, voiceIdsSchema, voicePatchSchema, voiceRenderingSchema } from './schemas.js'
import { checkQuota } from './quota.js'
import type { BackendTuning, CloneVoiceFields, ListVoicesOptions, StoredVoice, VoiceAnalysis, VoicePage, VoicePatch, VoiceQuota, VoiceRecord, VoiceStore, VoiceUsage } from './types.js'

/** The answer of a batch get: the voices found, in the order asked, and the ids no voice has. */
export interface VoiceBatch {
  voices: VoiceRecord[]
  not_found: string[]
}

export interface CallOptions {
  signal?: AbortSignal
}

export interface CloneOptions extends CallOptions {
  /** Who the voice is made for (an API key's id), and what they may store: past it, VOICE_QUOTA_EXCEEDED. */
  owner?: { id: string; quota?: VoiceQuota }
}

/** One call of the engine: its signal (the caller's, or the engine closing), and its end. */
export interface VoiceCall {
  readonly signal: AbortSignal
  throwIfAborted(): void
  end(): void
}

/** What the library asks of the engine: speech, and the calls it is part of. */
export interface VoiceRenderer {
  /** Starts a call (ENGINE_CLOSED once the engine is closed). */
  begin(options: CallOptions | undefined): VoiceCall
  /** Throws ENGINE_CLOSED once the engine is closed. */
  assertOpen(): void
  /** Mono float PCM at `CALIBRATION_RATE` of `text` spoken by `voice` on a builtin backend, English. */
  calibration(backend: BackendKind, voice: StoredVoice, text: string, signal: AbortSignal): Promise<Buffer>
  /** A WAV of `voice` saying `text` in its language. */
  preview(voice: StoredVoice, text: string, signal: AbortSignal): Promise<Buffer>
}

/** The rate calibration speech is measured at: the sample analysis's own. */
export const CALIBRATION_RATE = 16000

/** What a clone's fit is measured on: about six seconds of varied English. */
const CALIBRATION_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.'

/** The calibration text in `language`: a preview's, outside English. */
export function calibrationText(language: Language): string {
  return language === 'en' ? CALIBRATION_TEXT : previewText(language)
}

function voiceNotFound(voiceId: string): TtsError {
  return new TtsError('VOICE_NOT_FOUND', `no voice has id '${voiceId}'`)
}

/** A stored voice the native backends can render: a custom store's rendering is checked before anything uses it. */
function checkRendering(voice: StoredVoice): StoredVoice {
  const rendering = voiceRenderingSchema.safeParse(voice.rendering)
  if (!rendering.success) {
    const faults = rendering.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new TtsError('INVALID_VOICE', `voice '${voice.record.voice_id}' cannot be rendered: ${faults}`)
  }
  return voice
}

export class VoiceLibrary {
  private readonly previews = new PreviewCache()
  /** Cloned voices fitted to pack voices, by pack, voice and its last update, and language. */
  private readonly packTunings = new Map<string, Promise<BackendTuning>>()

  constructor(
    private readonly native: NativeAddon,
    private readonly store: VoiceStore,
    private readonly renderer: VoiceRenderer,
  ) {}

  /**
   * A new voice from a recording (WAV, FLAC, Ogg or MP3, at least 3 s of speech, at most 60 s)
   * and its fields { name, description?, language, gender? }. Nothing is stored unless it succeeds.
   */
  async clone(sample: Buffer, fields: CloneVoiceFields, options: CloneOptions = {}): Promise<VoiceRecord> {
    const { owner, ...callOptions } = options
    const call = this.renderer.begin(callOptions)
    try {
      const meta = parseWith(cloneRequestSchema, fields, 'clone request')
      if (!Buffer.isBuffer(sample)) throw new TtsError('INVALID_REQUEST', 'the sample must be a Buffer')
      // Refused before the analysis when the owner is at its quota already; checked again as the voice is stored.
      if (owner?.quota) checkQuota(await this.usage(owner.id), sample.length, owner.quota)
      const { analysis, mediaType } = await analyseSample(this.native, sample)
      call.throwIfAborted()
      const gender = meta.gender ?? inferGender(analysis)
      const rendering = await fitRendering(analysis, gender, (backend, base, tuning) => {
        const voice: StoredVoice = {
          record: { voice_id: 'calibration', voice_type: 'CUSTOM', name: 'calibration', description: '', created_at: '', updated_at: '', language: 'en', gender: 'Male' },
          rendering: { espeakVariant: base, flite: base, speed: 1, pitch: 1, tuning: { espeak: tuning, flite: tuning } },
        }
        return this.measure(this.renderer.calibration(backend, voice, CALIBRATION_TEXT, call.signal))
      })
      call.throwIfAborted()
      const stored = await this.store.create({ ...meta, gender, rendering, analysis, sample: { audio: sample, mediaType }, ...(owner && { owner: owner.id }) }, owner?.quota)
      return stored.record
    } finally {
      call.end()
    }
  }

  /** What an owner's cloned voices take (zero where the store keeps no owners). */
  async usage(owner: string): Promise<VoiceUsage> {
    return (await this.opened().usage?.(owner)) ?? { voices: 0, sampleBytes: 0 }
  }

  async list(options: ListVoicesOptions = {}): Promise<VoicePage> {
    return this.opened().list(parseWith(listVoicesSchema, options, 'voice list options'))
  }

  async get(voiceId: string): Promise<VoiceRecord> {
    return (await this.find(voiceId)).record
  }

  /** Unknown ids are reported in `not_found`, not thrown. */
  async getBatch(voiceIds: readonly string[]): Promise<VoiceBatch> {
    const ids = parseWith(voiceIdsSchema, voiceIds, 'voice ids')
    const found = await this.opened().getMany(ids)
    const known = new Set(found.map((v) => v.record.voice_id))
    return { voices: found.map((v) => v.record), not_found: ids.filter((id) => !known.has(id)) }
  }

  /** Changes a cloned voice's name, description, language or gender; predefined voices are VOICE_READ_ONLY. */
  async update(voiceId: string, patch: VoicePatch): Promise<VoiceRecord> {
    const changes = parseWith(voicePatchSchema, patch, 'voice update')
    const updated = await this.opened().update(voiceId, changes)
    if (!updated) throw voiceNotFound(voiceId)
    this.previews.forget(voiceId)
    return updated.record
  }

  async delete(voiceId: string): Promise<void> {
    if (!(await this.opened().delete(voiceId))) throw voiceNotFound(voiceId)
    this.previews.forget(voiceId)
  }

  /**
   * A short WAV of the voice speaking its language; cached until the voice changes. Callers asking
   * at once share one render, which no caller's leaving cancels (the engine's close() does).
   */
  async preview(voiceId: string, options?: CallOptions): Promise<Buffer> {
    const call = this.renderer.begin(options)
    try {
      const voice = await this.find(voiceId, call.signal)
      return await abortable(this.previews.get(voice, () => this.renderPreview(voice)), call.signal)
    } finally {
      call.end()
    }
  }

  /** The voice with this id, ready to render; VOICE_NOT_FOUND when there is none. */
  async find(voiceId: string, signal?: AbortSignal): Promise<StoredVoice> {
    let voice: StoredVoice | undefined
    try {
      voice = await abortable(this.opened().get(voiceId), signal)
    } catch (cause) {
      if (cause instanceof TtsError) throw cause
      throw new TtsError('SYNTHESIS_FAILED', `the voice store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    }
    if (!voice) throw voiceNotFound(voiceId)
    return checkRendering(voice)
  }

  /**
   * A cloned voice's fit to a pack voice (`key` names the pack, the voice's pack speaker and the
   * language), made on its first request there by rendering the calibration text a few times
   * (`render`), and kept for the library's life. Undefined for a voice that was not cloned.
   */
  packTuning(
    key: string,
    voice: StoredVoice,
    wholeSpeedsOnly: boolean,
    render: (tuning: BackendTuning) => Promise<Buffer>,
    signal: AbortSignal,
  ): Promise<BackendTuning> | undefined {
    if (!voice.analysis) return undefined
    const cacheKey = JSON.stringify([key, voice.record.voice_id, voice.record.updated_at])
    let fit = this.packTunings.get(cacheKey)
    if (!fit) {
      // Not the caller's signal: other requests may wait for this fit too; the engine's close() still stops it.
      fit = fitPackTuning(voice.analysis, !wholeSpeedsOnly, (tuning) => this.measure(render(tuning)))
      this.packTunings.set(cacheKey, fit)
      fit.catch(() => this.packTunings.delete(cacheKey))  // a failed fit (the engine closed) is tried again next time
    }
    return abortable(fit, signal)
  }

  private async renderPreview(voice: StoredVoice): Promise<Buffer> {
    const call = this.renderer.begin(undefined)
    try {
      return await this.renderer.preview(voice, previewText(voice.record.language), call.signal)
    } finally {
      call.end()
    }
  }

  /** The store, unless the engine is closed. */
  private opened(): VoiceStore {
    this.renderer.assertOpen()
    return this.store
  }

  private async measure(pcm: Promise<Buffer>): Promise<VoiceAnalysis> {
    return toAnalysis(await this.native.analysePcm(await pcm, CALIBRATION_RATE))
  }
}
