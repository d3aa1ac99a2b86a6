/** Can a search's budget decide (engine/search/feasibility.ts): the separation bound, Prop. 3, the cheapest epsilon. */
import { describe, expect, it } from 'vitest'
import { cheapestDecidingEpsilon, expectedQueriesBound, oracleErrorProbability, searchFeasibility } from '../../../src-worker/engine/search'

const base = { individuals: 900, top: 4, oracle: 'direct' as const, epsilon: 2, tLow: 50, tHigh: 120, tau: 0.5 }

describe('search feasibility from public inputs', () => {
  it('separation: ceil(log2(n / S)) questions, exact at powers of two, none when S covers everyone', () => {
    expect(searchFeasibility({ ...base, tau: undefined }).separatingQueries).toBe(8)
    expect(searchFeasibility({ ...base, individuals: 1024, tau: undefined }).separatingQueries).toBe(8)
    expect(searchFeasibility({ ...base, individuals: 1025, tau: undefined }).separatingQueries).toBe(9)
    expect(searchFeasibility({ ...base, individuals: 4, tau: undefined }).separatingQueries).toBe(0)
    // Without a posterior rule only separation counts (and at least one question).
    expect(searchFeasibility({ ...base, individuals: 4, tau: undefined }).neededQueries).toBe(1)
  })

  it("Prop. 3's rate: (log2(n / S) + log2(1/delta)) / (1 - h2(p)) questions for the oracle's error probability p", () => {
    const f = searchFeasibility(base)
    const p = oracleErrorProbability('direct', 2, 50, 120)
    expect(f.errorProbability).toBe(p)
    const h2 = -(p * Math.log2(p) + (1 - p) * Math.log2(1 - p))
    expect(f.expectedQueries).toBe(Math.ceil(Math.log2(900 / 4) / (1 - h2)))
    expect(f.expectedQueries).toBe(13)
    expect(f.neededQueries).toBe(13)
    // delta 0.05 asks for log2(20) more bits; with tau 0.5 beside it the first rule to fire (tau) sets the confidence.
    expect(searchFeasibility({ ...base, tau: undefined, delta: 0.05 }).expectedQueries).toBe(
      Math.ceil((Math.log2(900 / 4) + Math.log2(20)) / (1 - h2))
    )
    expect(searchFeasibility({ ...base, delta: 0.05 }).expectedQueries).toBe(13)
    // Randomized response at epsilon 2 (p = 0.119) carries fewer bits per answer than the binarised bound.
    expect(searchFeasibility({ ...base, oracle: 'rr' }).neededQueries).toBe(17)
    // A nearly exact oracle needs about the separation bound, never unboundedly many (Prop. 3's overshoot term is left out).
    expect(searchFeasibility({ ...base, tLow: 1, tHigh: 1000 }).neededQueries).toBe(8)
    expect(expectedQueriesBound(900, oracleErrorProbability('direct', 2, 1, 1000), 1)).toBe(Infinity)
  })

  it('the cheapest deciding epsilon per question is on the public grid and never dearer than the saved one', () => {
    const c = cheapestDecidingEpsilon(base)!
    expect(c.budget).toBeLessThanOrEqual(22 * 2)
    expect(c.queries).toBe(searchFeasibility({ ...base, epsilon: c.epsilon }).neededQueries)
    expect(c.budget).toBeCloseTo(c.queries * c.epsilon, 9)
    for (const e of [0.5, 1, 1.5, 3, 5]) expect(searchFeasibility({ ...base, epsilon: e }).neededQueries * e).toBeGreaterThanOrEqual(c.budget - 1e-9)
  })
})
