import { describe, expect, it } from 'vitest'
import { SecureRandom, deriveSeed, seededRng } from '../../../src-worker/engine/random'
import {
  PAPER_DEFAULTS,
  type ThresholdMechanism,
  type ThresholdParams,
  geometricPlan,
  runThresholdMechanism,
  runThresholdRelease,
  thresholdEpsilon
} from '../../../src-worker/engine/mide/index'
import { binomialUpperTail } from './stats'

/** 120 positives just above their thresholds (by 0.001..0.5), 80 negatives just below, 40 far on both sides. */
function nearThresholdWorkload(): { counts: Float64Array; thresholds: Float64Array; positive: boolean[] } {
  const rng = seededRng('near-workload')
  const counts: number[] = []
  const thresholds: number[] = []
  for (let i = 0; i < 240; i++) {
    const g = 100 + Math.floor(rng.next() * 900)
    let c: number
    if (i < 120)
      c = g - (i < 60 ? 0.001 : 0.5 * rng.next()) // positive, close
    else if (i < 200)
      c = g + 2 * rng.next() // negative, within the uncertainty region
    else c = i % 2 ? g - 300 : g + 300 // far
    counts.push(g)
    thresholds.push(c)
  }
  return { counts: Float64Array.from(counts), thresholds: Float64Array.from(thresholds), positive: counts.map((g, i) => g > thresholds[i]) }
}

const SETTINGS: Array<[string, ThresholdParams]> = [
  ['paper defaults', PAPER_DEFAULTS],
  ['active steps (eps1 = 0.3, beta = 0.1, m = 5)', { alpha: 1, beta: 0.1, epsMax: 10, eps1: 0.3, steps: 5, fineSteps: 3 }]
]
const TRIALS = 300
const POSITIVES = 140 // 120 close + 20 far positives (the far ones never miss)
// Per-predicate checks: 3 mechanisms x 2 settings x 140 positives = 840; family level 1e-3 -> ~1e-6 per check (Bonferroni).
const PER_CHECK = 1e-3 / (3 * 2 * POSITIVES)

function missCounts(
  mech: ThresholdMechanism,
  params: ThresholdParams,
  seed: string
): { miss: number[]; runs: ReturnType<typeof runThresholdMechanism>[] } {
  const w = nearThresholdWorkload()
  const miss = new Array(w.counts.length).fill(0)
  const runs = []
  for (let t = 0; t < TRIALS; t++) {
    const run = runThresholdMechanism(mech, w.counts, w.thresholds, params, seededRng(deriveSeed(seed, t)))
    expect(run.denied).toBe(false)
    for (let i = 0; i < w.counts.length; i++) if (w.positive[i] && !run.decisions[i]) miss[i]++
    runs.push(run)
  }
  expect(w.positive.filter(Boolean).length).toBe(POSITIVES)
  return { miss, runs }
}

describe('false-negative guarantee on a workload with many positives close to their thresholds', () => {
  for (const [label, params] of SETTINGS) {
    for (const mech of ['tslm', 'ppwlm', 'dppwlm'] as const) {
      it(`${mech}, ${label}: every positive's miss rate is consistent with <= beta`, () => {
        const { miss } = missCounts(mech, params, `fn/${mech}/${label}`)
        const w = nearThresholdWorkload()
        let worst = 1
        for (let i = 0; i < miss.length; i++) if (w.positive[i]) worst = Math.min(worst, binomialUpperTail(TRIALS, params.beta, miss[i]))
        expect(worst).toBeGreaterThan(PER_CHECK)
      })
    }
    it(`nlm, ${label}: has no such guarantee (some positive misses far more often than beta)`, () => {
      const { miss } = missCounts('nlm', params, `fn/nlm/${label}`)
      const w = nearThresholdWorkload()
      let worst = 1
      for (let i = 0; i < miss.length; i++) if (w.positive[i]) worst = Math.min(worst, binomialUpperTail(TRIALS, params.beta, miss[i]))
      expect(worst).toBeLessThan(PER_CHECK)
    })
  }

  it('TSLM misses a just-positive predicate about beta of the time (the bound is tight, so the test has power)', () => {
    const { miss } = missCounts('tslm', SETTINGS[0][1], 'fn/tight')
    const total = miss.slice(0, 60).reduce((a, b) => a + b, 0) // the 60 predicates 0.001 above their threshold
    const n = 60 * TRIALS
    const p = 0.05 * Math.exp(-thresholdEpsilon('tslm', PAPER_DEFAULTS) * 0.001)
    // two-sided normal bound at 1e-4 (z = 3.9), independent predicates and trials
    expect(Math.abs(total - n * p)).toBeLessThan(3.9 * Math.sqrt(n * p * (1 - p)))
  })
})

describe('privacy accounting', () => {
  it('ex-post costs never exceed the charge; PPWLM costs are planned levels', () => {
    const w = nearThresholdWorkload()
    for (const [, params] of SETTINGS) {
      const plan = geometricPlan(params).map((s) => s.epsilon)
      for (const mech of ['nlm', 'tslm', 'ppwlm', 'dppwlm'] as const) {
        for (let t = 0; t < 20; t++) {
          const run = runThresholdMechanism(mech, w.counts, w.thresholds, params, seededRng(deriveSeed('acct', mech, t)))
          expect(run.charge).toBe(thresholdEpsilon(mech, params))
          let mx = 0
          for (const e of run.exPost) {
            expect(e).toBeGreaterThan(0)
            expect(e).toBeLessThanOrEqual(run.charge)
            if (mech === 'ppwlm') expect(plan).toContain(e)
            mx = Math.max(mx, e)
          }
          expect(run.epsStar).toBe(mx)
          expect(run.minEntropy!.normalized).toBeGreaterThan(0)
          expect(run.minEntropy!.normalized).toBeLessThanOrEqual(1 + 1e-12)
        }
      }
    }
  })

  it('DPPWLM never spends beyond its plan: increasing eps <= eps_m, beta shares summing to <= beta', () => {
    const rng = seededRng('dppwlm-plan')
    for (let it = 0; it < 60; it++) {
      const k = 5 + Math.floor(rng.next() * 200)
      const counts = Float64Array.from({ length: k }, () => Math.floor(rng.next() * 1000))
      const spread = [1, 10, 100, 1000][it % 4]
      const thresholds = counts.map((g) => g + (rng.next() - 0.5) * spread)
      const params: ThresholdParams = {
        alpha: [1, 5, 20][it % 3],
        beta: 0.01 + 0.09 * rng.next(),
        epsMax: 100,
        eps1: [1e-5, 1e-3, 0.01][it % 3],
        steps: 2 + Math.floor(rng.next() * 8),
        fineSteps: 1 + Math.floor(rng.next() * 4)
      }
      const epsM = thresholdEpsilon('dppwlm', params)
      const run = runThresholdMechanism('dppwlm', counts, thresholds, params, seededRng(deriveSeed('dp', it)))
      let prev = 0,
        betaUsed = 0
      for (const s of run.steps) {
        expect(s.epsilon).toBeGreaterThan(prev)
        expect(s.epsilon).toBeLessThanOrEqual(epsM * (1 + 1e-12))
        expect(s.alpha * s.epsilon).toBeCloseTo(Math.log(1 / (2 * s.beta)), 9)
        prev = s.epsilon
        betaUsed += s.beta
      }
      expect(run.steps.length).toBeLessThanOrEqual(params.steps)
      expect(betaUsed).toBeLessThanOrEqual(params.beta * (1 + 1e-12))
      for (const e of run.exPost) expect(e).toBeLessThanOrEqual(epsM * (1 + 1e-12))
      expect(run.charge).toBe(epsM)
    }
  })

  it('is deterministic given the generator, and a release requires the secure one', () => {
    const w = nearThresholdWorkload()
    for (const mech of ['nlm', 'tslm', 'ppwlm', 'dppwlm'] as const) {
      const a = runThresholdMechanism(mech, w.counts, w.thresholds, PAPER_DEFAULTS, seededRng(9))
      const b = runThresholdMechanism(mech, w.counts, w.thresholds, PAPER_DEFAULTS, seededRng(9))
      expect(Array.from(a.decisions)).toEqual(Array.from(b.decisions))
      expect(Array.from(a.exPost)).toEqual(Array.from(b.exPost))
    }
    expect(() => runThresholdRelease('tslm', w.counts, w.thresholds, PAPER_DEFAULTS, seededRng(1) as unknown as SecureRandom)).toThrow(/secure/)
    const rel = runThresholdRelease('dppwlm', w.counts, w.thresholds, PAPER_DEFAULTS, SecureRandom.create())
    expect(rel.charge).toBe(thresholdEpsilon('dppwlm', PAPER_DEFAULTS))
    expect(Object.keys(rel).sort()).toEqual(['charge', 'denied', 'positives', 'sealed'])
  })
})
