/**
 * W3C Pronunciation Lexicon Specification 1.0 (the file ElevenLabs and Azure take): a dictionary
 * read from and written as `<lexicon>` of `<lexeme>`s, each `<grapheme>`s with a `<phoneme>`
 * (IPA) or an `<alias>`. Parsed by saxes like SSML: no DTD, no entity but the predefined ones.
 * A lexeme of several graphemes is a rule for each; of several phonemes or aliases, the first is
 * taken (PLS lets an engine choose). PLS has no case sensitivity: rules read from it match any
 * case, and `case_sensitive` is not written.
 */
import { createRequire } from 'node:module'
import { TtsError } from '../../errors.js'
import type { Dictionary, DictionaryRule } from './types.js'

// Loaded on the first PLS file, not at every program's start-up.
const require = createRequire(import.meta.url)
let saxes: typeof import('saxes') | undefined

const PLS_NAMESPACE = 'http://www.w3.org/2005/01/pronunciation-lexicon'

function plsError(offset: number, message: string): TtsError {
  return new TtsError('INVALID_MARKUP', `Invalid PLS at offset ${offset}: ${message}`, { extra: { offset } })
}

interface Lexeme {
  graphemes: string[]
  phonemes: string[]
  aliases: string[]
}

/** The rules of a PLS document, in its order. */
export function rulesFromPls(xml: string): DictionaryRule[] {
  const parser = new (saxes ??= require('saxes') as typeof import('saxes')).SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true })
  const rules: DictionaryRule[] = []
  const stack: string[] = []
  let lexeme: Lexeme | undefined
  let text = ''
  const at = () => Math.max(0, parser.position - 1)
  parser.on('error', (error) => {
    throw plsError(at(), error.message.replace(/^\d+:\d+: /, ''))
  })
  parser.on('doctype', () => {
    throw plsError(at(), 'a DOCTYPE is not allowed')
  })
  parser.on('opentag', (tag) => {
    const parent = stack[stack.length - 1]
    stack.push(tag.name)
    text = ''
    if (parent === undefined) {
      if (tag.name !== 'lexicon') throw plsError(at(), `the root element must be <lexicon>, not <${tag.name}>`)
      const alphabet = tag.attributes.alphabet
      if (alphabet !== undefined && alphabet.toLowerCase() !== 'ipa') throw plsError(at(), `alphabet '${alphabet}' is not supported: use ipa`)
      return
    }
    if (tag.name === 'lexeme' && parent === 'lexicon') lexeme = { graphemes: [], phonemes: [], aliases: [] }
    else if (tag.name === 'phoneme' && tag.attributes.alphabet !== undefined && tag.attributes.alphabet.toLowerCase() !== 'ipa') {
      throw plsError(at(), `alphabet '${tag.attributes.alphabet}' is not supported: use ipa`)
    } else if (!['lexeme', 'grapheme', 'phoneme', 'alias', 'meta', 'metadata', 'lexicon'].includes(tag.name) || (parent !== 'lexeme' && parent !== 'lexicon')) {
      throw plsError(at(), `unexpected <${tag.name}> in <${parent}>`)
    }
  })
  parser.on('text', (data) => {
    text += data
  })
  parser.on('closetag', (tag) => {
    stack.pop()
    const value = text.trim()
    text = ''
    if (!lexeme) return
    if (tag.name === 'grapheme') lexeme.graphemes.push(value)
    else if (tag.name === 'phoneme') lexeme.phonemes.push(value)
    else if (tag.name === 'alias') lexeme.aliases.push(value)
    else if (tag.name === 'lexeme') {
      const { graphemes, phonemes, aliases } = lexeme
      lexeme = undefined
      if (graphemes.length === 0 || (phonemes.length === 0 && aliases.length === 0)) throw plsError(at(), 'a <lexeme> needs a <grapheme> and a <phoneme> or <alias>')
      for (const grapheme of graphemes) rules.push(phonemes.length > 0 ? { text: grapheme, phonemes: phonemes[0]! } : { text: grapheme, alias: aliases[0]! })
    }
  })
  parser.write(xml).close()
  return rules
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** The dictionary as a PLS document, for `xmlLang` (PLS names one language a lexicon). */
export function dictionaryToPls(dictionary: Pick<Dictionary, 'rules'>, xmlLang: string): string {
  const lexemes = dictionary.rules.map((rule) => {
    const said = 'phonemes' in rule ? `<phoneme>${escape(rule.phonemes)}</phoneme>` : `<alias>${escape(rule.alias)}</alias>`
    return `  <lexeme>\n    <grapheme>${escape(rule.text)}</grapheme>\n    ${said}\n  </lexeme>\n`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" xmlns="${PLS_NAMESPACE}" alphabet="ipa" xml:lang="${escape(xmlLang)}">\n${lexemes.join('')}</lexicon>\n`
}
