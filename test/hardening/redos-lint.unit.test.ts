/**
 * Every regular expression in lib/ must run in linear time on any input: scslre finds those with
 * super-linear worst cases (nested or overlapping quantifiers, and unanchored patterns whose
 * backtracking repeats at each start position, like /[.]+$/ on '.....a').
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { analyse } from 'scslre'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { normaliserFor } from '../../lib/text/normalise/index.js'
import { LANGUAGES } from '../../lib/text/types.js'

const libDir = path.resolve(import.meta.dirname, '../../lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

interface Found {
  where: string
  regex: RegExp
}

/**
 * Regex literals and RegExps built from constant strings (lib/ writes characters above U+00FF in
 * strings: scripts/bundle-cli.mjs), and the files that build a RegExp from a pattern known only at
 * run time (which a scan of the source cannot see).
 */
function scan(): { literals: Found[]; dynamic: string[] } {
  const literals: Found[] = []
  const dynamic = new Set<string>()
  for (const file of sourceFiles(libDir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const relative = path.relative(libDir, file)
    const where = (node: ts.Node): string => `${relative}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(source)
        const slash = text.lastIndexOf('/')
        literals.push({ where: where(node), regex: new RegExp(text.slice(1, slash), text.slice(slash + 1)) })
      }
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'RegExp') {
        const [pattern, flags] = node.arguments ?? []
        const constant = (arg: ts.Expression | undefined): arg is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
          arg !== undefined && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))
        if (constant(pattern) && (flags === undefined || constant(flags))) {
          literals.push({ where: where(node), regex: new RegExp(pattern.text, flags?.text) })
        } else {
          dynamic.add(relative)
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return { literals, dynamic: [...dynamic].sort() }
}

function superLinear(found: Found[]): string[] {
  return found.flatMap(({ where, regex }) =>
    analyse(regex).reports.map((report) => `${where} ${String(regex)}: ${report.type}${report.exponential ? ' (exponential)' : ' (polynomial)'}`),
  )
}

describe('ReDoS lint', () => {
  const { literals, dynamic } = scan()

  it('finds the regexes of lib/', () => {
    expect(literals.length).toBeGreaterThan(30)
  })

  it('no regex literal or constant RegExp in lib/ has a super-linear worst case', () => {
    expect(superLinear(literals)).toEqual([])
  })

  it('the normalisers build only linear regexes, and no other file builds one from a pattern made at run time', () => {
    // A new `new RegExp(...)` of a pattern made at run time elsewhere must be checked here too.
    expect(dynamic).toEqual(['text/normalise/index.ts'])
    const built = LANGUAGES.flatMap((language) =>
      Object.entries(normaliserFor(language)).flatMap(([name, value]) => (value instanceof RegExp ? [{ where: `${language}.${name}`, regex: value }] : [])),
    )
    expect(built.length).toBeGreaterThan(20)
    expect(superLinear(built)).toEqual([])
  })
})
