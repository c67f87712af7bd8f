/** The parses of outside input made while some work runs, as PARSE_CHANNEL reports them ("one gate" tests). */
import { PARSE_CHANNEL } from '../../lib/index.js'

/** What was parsed (each parse's `what`) while `work` ran, in order; `work` may watch the list grow. */
export async function parsesOf(work: (parses: readonly string[]) => Promise<unknown>): Promise<string[]> {
  const parses: string[] = []
  const onParse = (message: unknown) => parses.push((message as { what: string }).what)
  PARSE_CHANNEL.subscribe(onParse)
  try {
    await work(parses)
  } finally {
    PARSE_CHANNEL.unsubscribe(onParse)
  }
  return parses
}
