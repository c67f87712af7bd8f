/**
 * The Wyoming events a text-to-speech server takes and sends (OHF-Voice/wyoming: info.py, tts.py,
 * audio.py, error.py). What a client sends is checked once with these schemas; fields they do not
 * name are ignored, as the reference's `from_event` ignores them (a client may send `context`).
 */
import * as z from 'zod'
import type { TtsError } from '../../errors.js'
import { parseWith } from '../../validation/parse.js'
import type { WyomingEvent } from './framing.js'

export const TEXT_FORMATS = ['text', 'ssml'] as const

/** `voice`: a name from the info (which overrides the language), or a language, and a speaker of a multi-speaker voice. */
const voiceSchema = z.object({
  name: z.string().min(1).max(200).nullish(),
  language: z.string().min(1).max(35).nullish(),
  speaker: z.string().min(1).max(200).nullish(),
})

const textFormatSchema = z.enum(TEXT_FORMATS, { error: `text_format must be ${TEXT_FORMATS.join(' or ')}` }).nullish()

export const synthesizeSchema = z.object({ text: z.string(), voice: voiceSchema.nullish(), text_format: textFormatSchema })
export const synthesizeStartSchema = z.object({ voice: voiceSchema.nullish(), text_format: textFormatSchema })
export const synthesizeChunkSchema = z.object({ text: z.string() })

export type SynthesizeVoice = z.output<typeof voiceSchema>
export type Synthesize = z.output<typeof synthesizeSchema>
export type SynthesizeStart = z.output<typeof synthesizeStartSchema>

export function parseEvent<S extends z.ZodType>(schema: S, event: WyomingEvent): z.output<S> {
  return parseWith(schema, event.data, `Wyoming ${event.type} event`)
}

/** The audio format of every audio event: 16-bit mono PCM at the voice's rate. */
export interface AudioFormat {
  rate: number
  width: 2
  channels: 1
}

export function audioStart(format: AudioFormat, timestamp: number): WyomingEvent {
  return { type: 'audio-start', data: { ...format, timestamp } }
}

export function audioChunk(format: AudioFormat, timestamp: number, audio: Buffer): WyomingEvent {
  return { type: 'audio-chunk', data: { ...format, timestamp }, payload: audio }
}

export function audioStop(timestamp: number): WyomingEvent {
  return { type: 'audio-stop', data: { timestamp } }
}

export const SYNTHESIZE_STOPPED: WyomingEvent = Object.freeze({ type: 'synthesize-stopped', data: {} })

export function errorEvent(error: TtsError): WyomingEvent {
  return { type: 'error', data: { text: error.message, code: error.code } }
}
