/**
 * MinEnt gives the same bits as it always has: 373 inputs taken from the `mide` preset's cells (PPWLM's exact ex-post
 * min-entropy and DPPWLM's budgeted candidate scores, 1 to 12 levels, eps_1 1e-5 ... 1e-1, m 2 ... 12), with the results
 * the implementation gave when they were recorded (gamma, the certified lower bound, the vertex), 8 of them with a node
 * budget small enough to stop the search (the value found by then depends on the search's order). A change that makes
 * MinEnt faster must keep every one of them: seeded Monte Carlo results (DPPWLM's choices, the reported min-entropy)
 * depend on these exact values.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type EpsLevel, minEntropyLevels } from '../../../src-worker/engine/mide/min-entropy'

interface GoldenCase {
  levels: EpsLevel[]
  maxNodes: number | null
  gamma: string
  lowerBound: string
  exact: boolean
  atUpper: number[]
  free: Array<string | null>
}

const cases = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'mide', 'min-entropy-golden.json'), 'utf8')) as GoldenCase[]

describe('MinEnt on recorded preset inputs', () => {
  it('has exact and budget-stopped cases', () => {
    expect(cases.length).toBe(373)
    expect(cases.filter((c) => !c.exact).length).toBe(8)
  })

  it('gives the recorded gamma, lower bound and vertex, bit for bit', () => {
    const diffs: string[] = []
    for (const [q, c] of cases.entries()) {
      const r = minEntropyLevels(c.levels, c.maxNodes === null ? {} : { maxNodes: c.maxNodes })
      const got = {
        gamma: String(r.gamma),
        lowerBound: String(r.lowerBound),
        exact: r.exact,
        atUpper: r.levels.map((l) => l.atUpper),
        free: r.levels.map((l) => (l.free === null ? null : String(l.free)))
      }
      const want = { gamma: c.gamma, lowerBound: c.lowerBound, exact: c.exact, atUpper: c.atUpper, free: c.free }
      if (JSON.stringify(got) !== JSON.stringify(want)) diffs.push(`case ${q}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`)
    }
    expect(diffs).toEqual([])
  })
})
