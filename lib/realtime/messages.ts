/**
 * The realtime protocol's messages (SPEC section 4, WebSocket), told apart by the fields they
 * carry, and the events the service sends back (SPEC section 6). A message's request fields pass
 * the same schemas as a synthesis request's, so the engine's gate trusts what they make.
 */
import * as z from 'zod'
import type { Alignment } from '../engine/alignment.js'
import { SPEAKING_FIELDS, speedSchema, SYNTHESIS_FIELD_CODES, voiceSelectorSchema } from '../engine/requests.js'
import { TtsError, type ErrorCode } from '../errors.js'
import { parseWith, strictObject } from '../validation/parse.js'
import { dictionaryLocatorsSchema } from '../voices/dictionaries/schemas.js'
import { languageSchema } from '../voices/schemas.js'

/** The context a message without `context_id` addresses, and the id its events carry. */
export const DEFAULT_CONTEXT_ID = 'default'

const contextId = z.string().min(1).max(128)

export const initializeConnectionSchema = strictObject({
  ...SPEAKING_FIELDS,
  /** Extension: each audioOutput carries its words with start and end times. */
  add_timestamps: z.boolean().optional(),
})

/** initializeContext and sendText: both carry a transcript; a context that is not active is initialised by it. */
export const textMessageSchema = strictObject({
  context_id: contextId.optional(),
  transcript: z.string(),
  force: z.boolean().optional(),
  // What a context's text message may change for its generation (re-initialising it).
  model_id: z.string().min(1).optional(),
  voice: voiceSelectorSchema.optional(),
  language: languageSchema.optional(),
  speed: speedSchema.optional(),
  pronunciation_dictionaries: dictionaryLocatorsSchema.optional(),
})

export const closeContextSchema = strictObject({
  context_id: contextId.optional(),
  close_context: z.literal(true),
  transcript: z.literal('', { message: 'transcript must be an empty string when closing a context' }).optional(),
})

export const cancelContextSchema = strictObject({ context_id: contextId.optional(), cancel: z.literal(true) })

export type InitializeConnection = z.infer<typeof initializeConnectionSchema>
export type TextMessage = z.infer<typeof textMessageSchema>
export type CloseContext = z.infer<typeof closeContextSchema>
export type CancelContext = z.infer<typeof cancelContextSchema>

export type ClientMessage =
  | { kind: 'initializeConnection'; message: InitializeConnection }
  | { kind: 'text'; message: TextMessage }
  | { kind: 'closeContext'; message: CloseContext }
  | { kind: 'cancel'; message: CancelContext }
  | { kind: 'closeConnection' }

export interface AudioOutput {
  context_id: string
  audio: string
  final: boolean
  alignment?: Alignment
  /** With add_timestamps: the SSML marks reached in this chunk, in ms from the start of the context's audio. */
  marks?: { name: string; time_ms: number }[]
}

export interface FinalOutput {
  context_id: string
  audio: ''
  final: true
  /** Extension: present (true) when the context ended by `cancel`. */
  cancelled?: true
}

/** Extension (connections opened with flushMarkers): `flushed` flushes of the context are complete, their text's audio all sent. */
export interface FlushedOutput {
  context_id: string
  flushed: number
}

export interface ErrorEvent {
  error_code: ErrorCode
  message: string
  extra?: Record<string, unknown>
  context_id?: string
}

export type ServerMessage = AudioOutput | FinalOutput | FlushedOutput | ErrorEvent

/** One frame's text as a JSON object, else INVALID_MESSAGE. */
export function frameObject(text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new TtsError('INVALID_MESSAGE', 'a message must be a JSON object')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TtsError('INVALID_MESSAGE', 'a message must be a JSON object')
  return value as Record<string, unknown>
}

/** Parses one frame's text into a message, by the fields it carries. */
export function parseClientMessage(text: string): ClientMessage {
  return parseMessageFields(frameObject(text))
}

/**
 * A message's fields, as the SPEC's messages carry them, checked by the message schemas: the one
 * gate every realtime dialect's messages pass, after the dialect has renamed its fields.
 */
export function parseMessageFields(fields: Record<string, unknown>): ClientMessage {
  try {
    return messageOf(fields)
  } catch (error) {
    // A refused message that names its context says so, as every error of a context does.
    const id = contextId.safeParse(fields.context_id)
    if (!id.success || !(error instanceof TtsError)) throw error
    throw new TtsError(error.code, error.message, { cause: error, extra: { ...error.extra, context_id: id.data } })
  }
}

function messageOf(fields: Record<string, unknown>): ClientMessage {
  if (fields.terminate === true || (fields.text === '' && !('transcript' in fields))) return { kind: 'closeConnection' }
  if (fields.close_context !== undefined) return { kind: 'closeContext', message: parseWith(closeContextSchema, fields, 'closeContext message') }
  if (fields.cancel !== undefined) return { kind: 'cancel', message: parseWith(cancelContextSchema, fields, 'cancel message') }
  if ('transcript' in fields) return { kind: 'text', message: parseWith(textMessageSchema, fields, 'text message', SYNTHESIS_FIELD_CODES) }
  if ('model_id' in fields || 'voice' in fields) {
    return { kind: 'initializeConnection', message: parseWith(initializeConnectionSchema, fields, 'initializeConnection message', SYNTHESIS_FIELD_CODES) }
  }
  throw new TtsError('INVALID_MESSAGE', 'unrecognised message: expected initializeConnection, a transcript, close_context, cancel, or terminate')
}
