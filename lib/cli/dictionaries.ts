/**
 * `svc-tts dictionaries list | create --name N FILE | show ID [--version N] [--pls] | delete ID`:
 * the pronunciation dictionaries of the data directory's voice library. FILE is a W3C PLS
 * document (.pls, .xml) or a JSON array of rules.
 */
import { readFile } from 'node:fs/promises'
import type { Engine } from '../engine/engine.js'
import { TtsError } from '../errors.js'
import { usageError } from './exit.js'

export const DICTIONARIES_USAGE = 'usage: svc-tts dictionaries list | create --name N FILE(.pls|.json) | show ID[@VERSION] [--pls] | delete ID  [--data-dir DIR]'

export interface DictionaryArguments {
  name?: string
  pls?: boolean
}

/** `ID` or `ID@VERSION`, as `show` and `say --dictionary` take a dictionary. */
export function dictionaryLocator(value: string): { id: string; version?: number } {
  const at = value.lastIndexOf('@')
  if (at < 0) return { id: value }
  const version = Number(value.slice(at + 1))
  if (!(Number.isInteger(version) && version >= 1)) throw usageError(`'${value}': a dictionary is ID or ID@VERSION (1, 2, ...)`)
  return { id: value.slice(0, at), version }
}

async function rulesFile(file: string, name: string, engine: Engine<string>) {
  const text = await readFile(file, 'utf8').catch((cause: unknown) => {
    throw new TtsError('IO_FAILED', `cannot read ${file}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  })
  if (/\.(pls|xml)$/i.test(file)) return engine.dictionaries.createFromPls(name, text)
  let rules: unknown
  try {
    rules = JSON.parse(text)
  } catch {
    throw new TtsError('INVALID_REQUEST', `${file} is neither PLS (.pls, .xml) nor a JSON array of rules`)
  }
  return engine.dictionaries.create({ name, rules: rules as never })
}

export async function manageDictionaries(engine: Engine<string>, action: string | undefined, argument: string | undefined, values: DictionaryArguments, print: (line: string) => void): Promise<number> {
  switch (action) {
    case 'list':
      for (const d of await engine.dictionaries.list()) print(`${d.dictionary_id}  v${d.version}  ${d.rule_count} rules  ${d.name}`)
      return 0
    case 'create': {
      if (!argument || !values.name) throw usageError(DICTIONARIES_USAGE)
      const created = await rulesFile(argument, values.name, engine)
      print(`${created.dictionary_id}  v${created.version}  ${created.rules.length} rules  ${created.name}`)
      return 0
    }
    case 'show': {
      if (!argument) throw usageError(DICTIONARIES_USAGE)
      const { id, version } = dictionaryLocator(argument)
      if (values.pls) print((await engine.dictionaries.toPls(id, version)).trimEnd())
      else print(JSON.stringify(await engine.dictionaries.get(id, version), null, 2))
      return 0
    }
    case 'delete':
      if (!argument) throw usageError(DICTIONARIES_USAGE)
      await engine.dictionaries.delete(argument)
      return 0
    default:
      throw usageError(DICTIONARIES_USAGE)
  }
}
