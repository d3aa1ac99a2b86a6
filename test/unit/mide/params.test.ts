import { describe, expect, it } from 'vitest'
import { type Rng, seededRng } from '../../../src-worker/engine/random'
import {
  PAPER_DEFAULTS,
  checkThresholdParams,
  describeGuarantee,
  geometricPlan,
  runThresholdMechanism,
  thresholdCharge,
  thresholdEpsilon
} from '../../../src-worker/engine/mide/index'

const lapTail = (eps: number, x: number) => 0.5 * Math.exp(-eps * x) // P(Lap(1/eps) <= -x), x >= 0

describe('epsilon formulas and plans', () => {
  it('TSLM/NLM eps makes the shifted threshold miss a just-positive predicate with probability beta', () => {
    for (const [alpha, beta] of [
      [1, 0.05],
      [10, 0.01],
      [200, 0.1]
    ]) {
      const p = { ...PAPER_DEFAULTS, alpha, beta, epsMax: 1e9 }
      const e = thresholdEpsilon('tslm', p)
      expect(lapTail(e, alpha)).toBeCloseTo(beta, 12)
      expect(thresholdEpsilon('nlm', p)).toBe(e)
    }
  })

  it('multi-step plans are geometric from eps1 to eps_m with beta/m per step', () => {
    for (const m of [2, 4, 12]) {
      const p = { ...PAPER_DEFAULTS, steps: m, epsMax: 100 }
      const plan = geometricPlan(p)
      expect(plan.length).toBe(m)
      expect(plan[0].epsilon).toBe(p.eps1)
      const epsM = plan[m - 1].epsilon
      expect(epsM).toBe(thresholdEpsilon('ppwlm', p))
      expect(lapTail(epsM, p.alpha)).toBeCloseTo(p.beta / m, 12) // final band gives beta/m at width alpha
      for (let j = 1; j < m; j++) expect(plan[j].epsilon / plan[j - 1].epsilon).toBeCloseTo(plan[1].epsilon / plan[0].epsilon, 9)
      for (const s of plan) {
        expect(s.beta).toBeCloseTo(p.beta / m, 15)
        expect(lapTail(s.epsilon, s.alpha)).toBeCloseTo(s.beta, 12)
      }
    }
  })

  it('denies when the needed eps exceeds eps_max: no noise drawn, nothing released, nothing charged', () => {
    let draws = 0
    const base = seededRng(3)
    const counting: Rng = {
      kind: 'seeded',
      next: () => {
        draws++
        return base.next()
      },
      fillWords: (out, count) => {
        draws++
        base.fillWords(out, count)
      },
      fillSampleWords: (out, count) => {
        draws++
        base.fillSampleWords(out, count)
      },
      fillLaneWords: (out, count) => {
        draws++
        base.fillLaneWords(out, count)
      },
      laneState: () => {
        draws++
        return base.laneState()
      }
    }
    for (const mech of ['nlm', 'tslm', 'ppwlm', 'dppwlm'] as const) {
      const p = { ...PAPER_DEFAULTS, alpha: 0.5 } // TSLM needs 4.6, PPWLM 7.4 > 4
      expect(thresholdCharge(mech, p).denied).toBe(true)
      const run = runThresholdMechanism(mech, [10, 20], [5, 30], p, counting)
      expect(run.denied).toBe(true)
      expect(run.charge).toBe(0)
      expect(run.positives).toEqual([])
      expect(Array.from(run.decisions)).toEqual([0, 0])
    }
    expect(draws).toBe(0)
    // at the boundary the query is admitted
    const ok = { ...PAPER_DEFAULTS, epsMax: thresholdEpsilon('ppwlm', PAPER_DEFAULTS) }
    expect(thresholdCharge('ppwlm', ok).denied).toBe(false)
  })

  it('checks parameters with one sentence', () => {
    expect(checkThresholdParams('tslm', { ...PAPER_DEFAULTS, beta: 0.5 })).toMatch(/beta/)
    expect(checkThresholdParams('tslm', { ...PAPER_DEFAULTS, alpha: 0 })).toMatch(/alpha/)
    expect(checkThresholdParams('ppwlm', { ...PAPER_DEFAULTS, steps: 1 })).toMatch(/steps/)
    expect(checkThresholdParams('tslm', { ...PAPER_DEFAULTS, steps: 1 })).toBeNull()
    expect(checkThresholdParams('dppwlm', { ...PAPER_DEFAULTS, fineSteps: 0 })).toMatch(/fine-steps/)
    expect(checkThresholdParams('ppwlm', { ...PAPER_DEFAULTS, eps1: 5 })).toMatch(/eps1/)
  })

  it('describes the guarantee before running', () => {
    const g = describeGuarantee('tslm', PAPER_DEFAULTS, 500)
    expect(g.falseNegativeBound).toBe(0.05)
    expect(g.uncertaintyWidth).toBe(2)
    expect(g.denied).toBe(false)
    expect(g.minEntropyAtCharge).toBeGreaterThan(0)
    expect(g.minEntropyAtCharge).toBeLessThan(1)
    expect(describeGuarantee('nlm', PAPER_DEFAULTS).falseNegativeBound).toBeNull()
    expect(describeGuarantee('ppwlm', PAPER_DEFAULTS).plan.length).toBe(4)
  })
})
