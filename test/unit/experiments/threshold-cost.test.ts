import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { thresholdAdapter } from '../../../src-main/services/experiments/engines/threshold'
import { expectedPlanWork, thresholdTrialCost } from '../../../src-main/services/experiments/engines/threshold-cost'
import { PAPER_DEFAULTS, type ThresholdParams, geometricPlan, parseWorkload } from '../../../src-worker/engine/mide'

const taxi = (level: 'H' | 'M' | 'L') => parseWorkload(readFileSync(`resources/workloads/taxi-jan2015-${level}.csv`, 'utf8'))
const params = (p: Partial<ThresholdParams>): ThresholdParams => ({ ...PAPER_DEFAULTS, epsMax: 8, ...p })

/** P(|d + X| <= a), X ~ Laplace(b), from the Laplace CDF (independent of the estimate's closed form). */
function inBand(d: number, a: number, b: number): number {
  const cdf = (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b))
  return cdf(a - d) - cdf(-a - d)
}

describe('threshold sweep cost estimate (time left)', () => {
  const w = taxi('M')
  const k = w.counts.length

  it('expects, from quantiles of the distances, the predicates every step of the plan tests over all predicates', () => {
    for (const p of [
      params({ eps1: 1e-5, steps: 12 }),
      params({ eps1: 1e-2, steps: 6 }),
      params({ alpha: 50, beta: 0.02, steps: 4 }),
      params({ eps1: 1e-3, steps: 8 })
    ]) {
      let tested = k
      const plan = geometricPlan(p)
      for (let j = 0; j < plan.length - 1; j++) {
        let undecided = 0
        for (let i = 0; i < k; i++) undecided += inBand(w.counts[i] - w.thresholds[i], plan[j].alpha, 1 / plan[j].epsilon)
        tested += undecided
      }
      const got = expectedPlanWork(p, w).tested
      // 64 quantiles of the 1,488 distances: within 0.2 % here
      expect(Math.abs(got - tested) / tested).toBeLessThan(0.005)
    }
  })

  it('ranks cells as their work grows: more steps, a smaller first epsilon, DPPWLM over PPWLM over the single-step mechanisms', () => {
    const cost = (m: 'nlm' | 'tslm' | 'ppwlm' | 'dppwlm', p: Partial<ThresholdParams>) => thresholdTrialCost(m, params(p), w)
    expect(cost('nlm', {})).toBe(k)
    expect(cost('tslm', {})).toBe(k)
    for (const m of ['ppwlm', 'dppwlm'] as const) {
      expect(cost(m, { eps1: 1e-5, steps: 12 })).toBeGreaterThan(cost(m, { eps1: 1e-5, steps: 4 }))
      expect(cost(m, { eps1: 1e-5, steps: 4 })).toBeGreaterThan(cost(m, { eps1: 1e-5, steps: 2 }))
      expect(cost(m, { eps1: 1e-5, steps: 12 })).toBeGreaterThan(2 * cost(m, { eps1: 0.1, steps: 12 }))
      expect(cost(m, { eps1: 0.1, steps: 2 })).toBeGreaterThan(k)
    }
    expect(cost('dppwlm', { eps1: 1e-4, steps: 10 })).toBeGreaterThan(3 * cost('ppwlm', { eps1: 1e-4, steps: 10 }))
  })

  it('never throws: parameters the engine refuses (the batch fails with its sentence) count as a single-step cell', () => {
    expect(thresholdTrialCost('ppwlm', params({ eps1: 50, steps: 4 }), w)).toBe(k)
    expect(thresholdTrialCost('dppwlm', params({ steps: 1 }), w)).toBe(k)
  })

  it('a denied cell draws nothing and costs next to nothing', () => {
    expect(thresholdTrialCost('ppwlm', params({ alpha: 1, beta: 0.01, steps: 12, epsMax: 1 }), w)).toBe(1)
    expect(thresholdTrialCost('tslm', params({ alpha: 1, beta: 0.01, epsMax: 1 }), w)).toBe(1)
  })

  it('holds per workload: the same counts with other thresholds get their own estimate', () => {
    const h = taxi('H')
    const l = taxi('L')
    const p = params({ eps1: 1e-2, steps: 8 })
    expect(expectedPlanWork(p, h).tested).not.toBe(expectedPlanWork(p, l).tested)
    expect(expectedPlanWork(p, { counts: h.counts, thresholds: h.thresholds })).toEqual(expectedPlanWork(p, h))
  })

  it("is the threshold engine's trial cost, with alpha in the workload's units (a saved query's counts divided by its sensitivity)", () => {
    const cell = { mechanism: 'dppwlm', params: { alpha: 6, beta: 0.05, eps_max: 8, eps_1: 1e-3, m: 8, m_f: 3 }, seed: 's' }
    const loaded = { info: { label: 'q', source: 'q', hash: 'h', facts: {} }, data: { counts: w.counts, thresholds: w.thresholds, scale: 3 } }
    const cost = thresholdAdapter.trialCost!(cell, loaded)
    expect(cost).toBe(thresholdTrialCost('dppwlm', params({ alpha: 2, eps1: 1e-3, steps: 8 }), w))
    expect(cost).not.toBe(thresholdTrialCost('dppwlm', params({ alpha: 6, eps1: 1e-3, steps: 8 }), w))
  })
})
