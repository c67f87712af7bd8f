// The README and the docs pages link to each other, to bench/RESULTS.md and to headings inside
// them. This fails on a relative link whose file does not exist, and on a #anchor into a Markdown
// file that has no heading with that GitHub slug. Links inside code are not links.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return markdownFiles(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

/** The text outside fenced code blocks, line by line (a fenced line becomes empty, keeping line numbers). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker
      return ''
    }
    return fence ? '' : line
  })
}

/** Relative link targets, with their line numbers: inline links, images and reference definitions. */
function linksOf(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = []
  proseLines(markdown).forEach((text, index) => {
    const line = text.replace(/(`+)[\s\S]*?\1/g, '')  // code spans
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]!),
    ]
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue  // http:, mailto:, ...
      links.push({ line: index + 1, target })
    }
  })
  return links
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')  // links and images: their text
    .replace(/<[^>]+>/g, '')                    // inline HTML
    .replace(/[`*]/g, '')                       // code and emphasis markers
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-')
}

/** Every anchor a Markdown file has: its headings' slugs (repeats get -1, -2, ...) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1]
    if (heading !== undefined) {
      const slug = slugOf(heading)
      const count = seen.get(slug) ?? 0
      seen.set(slug, count + 1)
      anchors.add(count === 0 ? slug : `${slug}-${count}`)
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!)
  }
  return anchors
}

/** What is wrong with the relative links of one Markdown file: `line: target (why)`. */
function brokenLinks(file: string): string[] {
  const problems: string[] = []
  for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
    const hash = target.indexOf('#')
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
    const linked = pathPart === '' ? file : resolve(dirname(file), pathPart)
    if (!existsSync(linked)) {
      problems.push(`${line}: ${target} (no such file)`)
      continue
    }
    if (anchor === undefined || !linked.endsWith('.md') || statSync(linked).isDirectory()) continue
    if (!anchorsOf(readFileSync(linked, 'utf8')).has(anchor)) {
      problems.push(`${line}: ${target} (${relative(root, linked)} has no heading #${anchor})`)
    }
  }
  return problems
}

const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))]

describe('the link checker', () => {
  it('makes GitHub slugs', () => {
    expect(slugOf('Speaking rate: `speed` (extension)')).toBe('speaking-rate-speed-extension')
    expect(slugOf('Choices where the SPEC says "not shown"')).toBe('choices-where-the-spec-says-not-shown')
    expect(slugOf('Server (bench/studies/server.ts)')).toBe('server-benchstudiesserverts')
    expect(slugOf('1-D convolutions as 2-D (both pack types)')).toBe('1-d-convolutions-as-2-d-both-pack-types')
    expect(slugOf("The text layer's files")).toBe('the-text-layers-files')
    expect([...anchorsOf('# A\n## A\n```\n# B\n```\n')]).toEqual(['a', 'a-1'])
  })

  it('reads links outside code only, and only relative ones', () => {
    const markdown = [
      'See [a](docs/a.md#x), ![b](img/b.png "B") and [c](https://example.com).',
      '`[not](a-link.md)`',
      '```',
      '[not](either.md)',
      '```',
      '[ref]: ./other.md',
    ].join('\n')
    expect(linksOf(markdown)).toEqual([
      { line: 1, target: 'docs/a.md#x' },
      { line: 1, target: 'img/b.png' },
      { line: 6, target: './other.md' },
    ])
  })
})

describe('relative links resolve', () => {
  it('finds the README and the docs pages', () => {
    expect(pages.map((p) => relative(root, p))).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md']))
  })

  for (const page of pages) {
    it(relative(root, page), () => {
      expect(brokenLinks(page)).toEqual([])
    })
  }
})
