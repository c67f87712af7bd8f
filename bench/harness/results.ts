/**
 * bench/RESULTS.md: the streaming core's report (bench/streaming-core.ts), then the sections other
 * benches write, each between `<!-- name:start -->` and `<!-- name:end -->`, so a rerun replaces
 * its own part of the file and keeps the rest.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url))
const MARKED_SECTION = /<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g

function currentResults(): string {
  return existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : ''
}

/** Puts `body` between the `name` markers, where that section was or else at the end; returns the marked section. */
export function writeSection(name: string, body: string): string {
  if (!/^[\w-]+$/.test(name)) throw new Error(`a section name is letters, digits, _ and -, not '${name}'`)
  const section = `<!-- ${name}:start -->\n${body.trim()}\n<!-- ${name}:end -->\n`
  const marked = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->\\n?`)
  const results = currentResults()
  // A function, not a string, as the replacement: a `$` in the figures is text, not a pattern.
  writeFileSync(RESULTS, marked.test(results) ? results.replace(marked, () => section) : `${results.trimEnd()}\n\n${section}`)
  return section
}

/** Rewrites the file as `report` followed by every marked section it had; returns what it wrote. */
export function writeReport(report: string): string {
  const kept = currentResults().match(MARKED_SECTION) ?? []
  const text = [report, ...kept.map((section) => `${section.trimEnd()}\n`)].join('\n')
  writeFileSync(RESULTS, text)
  return text
}
