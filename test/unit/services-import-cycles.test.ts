/**
 * No import cycle anywhere in src-main/services, type-only imports included (the lint rule keeps folders in order; this
 * catches a cycle inside a folder too). The graph is read from the sources' relative imports, static and dynamic.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const SERVICES = path.resolve(__dirname, '../../src-main/services')

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []
  )
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g

function resolveModule(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec)
  for (const c of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    try {
      if (statSync(c).isFile()) return c
    } catch {
      /* not this candidate */
    }
  }
  return null
}

/** The import graph of `files`, restricted to them. */
function importGraph(files: string[]): Map<string, string[]> {
  const inSet = new Set(files)
  const g = new Map<string, string[]>()
  for (const f of files) {
    const deps = new Set<string>()
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const r = resolveModule(f, m[1] ?? m[2])
      if (r !== null && inSet.has(r)) deps.add(r)
    }
    g.set(f, [...deps])
  }
  return g
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(g: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc)
    }
  }
  for (const v of g.keys()) if (!index.has(v)) visit(v)
  return out
}

describe('services import graph', () => {
  it('finds a cycle when there is one (the scan can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']]
    ])
    expect(cycles(g).map((c) => c.sort())).toEqual([['a', 'b', 'c']])
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []]
        ])
      )
    ).toEqual([])
  })

  it('has no import cycle (type-only imports included)', () => {
    const files = tsFiles(SERVICES)
    const g = importGraph(files)
    // The scan sees the real graph: the composition root imports many modules.
    expect(g.get(path.join(SERVICES, 'index.ts'))!.length).toBeGreaterThan(10)
    const found = cycles(g).map((c) => c.map((f) => path.relative(SERVICES, f)).sort())
    expect(found).toEqual([])
  })
})
