/** `name=N,name=N` flags (--limits, --jobs-options): numbers by name, checked as the option they fill is checked. */
import type * as z from 'zod'
import { parseWith } from '../validation/parse.js'
import { usageError } from './exit.js'

export function numberPairs<Schema extends z.ZodType>(flag: string, list: string, schema: Schema): z.input<Schema> {
  const entries = list.split(',').map((pair) => pair.split('=').map((part) => part.trim()))
  const malformed = entries.filter((entry) => entry.length !== 2 || entry[1] === '' || !Number.isFinite(Number(entry[1])))
  if (malformed.length > 0) throw usageError(`${flag} takes name=number pairs, comma-separated; not: ${malformed.map((entry) => entry.join('=')).join(', ')}`)
  const values = Object.fromEntries(entries.map(([name, value]) => [name, Number(value)]))
  try {
    parseWith(schema, values, flag)
  } catch (error) {
    throw usageError((error as Error).message)
  }
  return values as z.input<Schema>
}
