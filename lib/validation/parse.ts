/**
 * Validation of outside input, once. Every parse of a request, a message or options goes through
 * parseWith, which turns a failure into a TtsError naming each fault and marks the value it returns
 * as checked by that schema: a layer below handed the very same object trusts it instead of
 * parsing it again. What was checked is frozen (its plain data), so it cannot change under them.
 */
import * as z from 'zod'
import { TtsError, type ErrorCode } from '../errors.js'
import { PARSE_CHANNEL } from './parse-channel.js'

/** Error codes for requests whose every fault lies in one field: `{ output_format: 'FORMAT_NOT_RECOGNIZED' }`. */
export type FieldCodes = Readonly<Record<string, ErrorCode>>

const checked = new WeakMap<object, z.core.$ZodType>()

function describe(error: z.ZodError): string {
  return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')
}

/** Each failed check with the path of the field it concerns, for clients that point at the field. */
function issues(error: z.ZodError): { issues: { path: (string | number)[]; message: string }[] } {
  return { issues: error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message })) }
}

function errorCode(error: z.ZodError, fieldCodes: FieldCodes): ErrorCode {
  const codes = new Set(error.issues.map((i) => {
    const field = String(i.path[0])
    return (Object.hasOwn(fieldCodes, field) && fieldCodes[field]) || 'INVALID_REQUEST'
  }))
  return codes.size === 1 ? [...codes][0]! : 'INVALID_REQUEST'
}

function isPlainData(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null || Array.isArray(value)
}

/** Freezes plain objects and arrays, never the instances a schema passes through (a store, a signal). */
function freezeData(value: unknown): void {
  if (!isPlainData(value) || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const field of Object.values(value)) freezeData(field)
}

/** The schema under optional(), default() and nullable(), whose output is its inner schema's. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType }
  return ['optional', 'default', 'prefault', 'nullable', 'readonly'].includes(def.type) && def.innerType ? unwrapped(def.innerType) : schema
}

/** Marks `data` as checked by `schema`, and each field of an object schema by its own schema. */
function markChecked(schema: z.core.$ZodType, data: unknown): void {
  if (!isPlainData(data)) return
  checked.set(data, unwrapped(schema))
  const def = schema._zod.def as { type: string; shape?: Record<string, z.core.$ZodType> }
  if (def.type !== 'object' || !def.shape) return
  for (const [field, fieldSchema] of Object.entries(def.shape)) markChecked(unwrapped(fieldSchema), (data as Record<string, unknown>)[field])
}

/**
 * Marks a value assembled from values checked by parts of `schema` (a realtime context's request:
 * its connection's fields with the overrides of its own message) as checked by `schema` itself.
 */
export function assembled<S extends z.core.$ZodType>(schema: S, value: z.output<S>): z.output<S> {
  freezeData(value)
  markChecked(schema, value)
  return value
}

/**
 * `value` checked by `schema`: a TtsError INVALID_REQUEST (or the field's own code, see FieldCodes)
 * names every fault; a value that throws while it is read (a getter, a Proxy) is the same error.
 */
export function parseWith<S extends z.core.$ZodType>(schema: S, value: unknown, what: string, fieldCodes: FieldCodes = {}): z.output<S> {
  if (typeof value === 'object' && value !== null && checked.get(value) === unwrapped(schema)) return value as z.output<S>
  if (PARSE_CHANNEL.hasSubscribers) PARSE_CHANNEL.publish({ what })
  let result: z.ZodSafeParseResult<z.output<S>>
  try {
    result = z.safeParse(schema, value)
  } catch (cause) {
    throw new TtsError('INVALID_REQUEST', `invalid ${what}: reading it threw ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
  if (!result.success) throw new TtsError(errorCode(result.error, fieldCodes), `invalid ${what}: ${describe(result.error)}`, { extra: issues(result.error) })
  freezeData(result.data)
  markChecked(schema, result.data)
  return result.data
}

/** Letters only, lower case: `outputFormat`, `output_format` and `OUTPUT-FORMAT` are one name. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '')
}

export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** The known field an unknown one most likely meant, if any is close. */
export function closestField(unknown: string, known: readonly string[]): string | undefined {
  let best: { field: string; distance: number } | undefined
  for (const field of known) {
    const distance = editDistance(squash(unknown), squash(field))
    if (!best || distance < best.distance) best = { field, distance }
  }
  return best && best.distance <= Math.max(1, Math.floor(squash(unknown).length / 3)) ? best.field : undefined
}

/** Unknown fields an error names one by one; the rest are counted, so neither the message nor its making grows with the input. */
export const NAMED_UNKNOWN_FIELDS = 8

/**
 * An object schema that refuses fields it does not know, naming each (up to NAMED_UNKNOWN_FIELDS)
 * and the known field it is closest to: a caller's `outputFormat` is an error that says
 * `output_format`, never a silent default.
 */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape)
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined
      const named = issue.keys.slice(0, NAMED_UNKNOWN_FIELDS).map((key) => {
        const near = closestField(key.slice(0, 64), known)
        return `unknown field '${key.length > 64 ? `${key.slice(0, 64)}...` : key}'${near ? ` (did you mean '${near}'?)` : ''}`
      })
      const rest = issue.keys.length - named.length
      return [...named, ...(rest > 0 ? [`and ${rest} more unknown fields`] : [])].join('; ')
    },
  })
}
