/** Where `say` gets its text: the arguments, a file (`--text-file`), or stdin (`-`, or no text with stdin not a terminal). */
import { readFile } from 'node:fs/promises'
import { ioError, usageError } from './exit.js'

/** Text known at once, or text that keeps arriving (stdin: spoken as it comes, so a pipe from a generator speaks early). */
export type TextSource = { kind: 'whole'; text: string } | { kind: 'stream'; pieces: AsyncIterable<string> }

/** `stdin` is asked for only where the text comes from it: making process.stdin's stream costs about 1 ms of a short `say`. */
export async function textSource(words: readonly string[], textFile: string | undefined, stdin: () => NodeJS.ReadStream): Promise<TextSource> {
  const fromStdin = words.length === 1 && words[0] === '-'
  if (textFile !== undefined) {
    if (words.length > 0) throw usageError('give the text either as arguments or with --text-file, not both')
    if (textFile === '-') return { kind: 'stream', pieces: readStdin(stdin()) }
    try {
      return { kind: 'whole', text: await readFile(textFile, 'utf8') }
    } catch (error) {
      throw ioError(`cannot read --text-file ${textFile}`, error)
    }
  }
  if (fromStdin || (words.length === 0 && !stdin().isTTY)) return { kind: 'stream', pieces: readStdin(stdin()) }
  if (words.length === 0) throw usageError('say needs text: as arguments, - (or a pipe) for stdin, or --text-file FILE')
  return { kind: 'whole', text: words.join(' ') }
}

/** Stdin as UTF-8 text (a character split across reads is kept whole by the stream's decoder). */
async function* readStdin(stdin: NodeJS.ReadStream): AsyncGenerator<string> {
  stdin.setEncoding('utf8')
  try {
    for await (const piece of stdin) yield piece as string
  } catch (error) {
    throw ioError('cannot read stdin', error)
  }
}
