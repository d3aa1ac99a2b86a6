import { describe, expect, it } from 'vitest'
import { seededRng } from '../../../src-worker/engine/random'
import {
  askOracle,
  binaryErrorBound,
  prepareOracle,
  rrFlipProbability,
  rrLogProbabilities,
  binaryLogProbabilities
} from '../../../src-worker/engine/search'
import { normalUpperQuantile } from './stats'

describe('search oracles', () => {
  it('randomized response: eps = ln((1-p)/p), stable log probabilities for huge eps', () => {
    for (const eps of [0.01, 0.5, 1, 3, 10]) {
      const p = rrFlipProbability(eps)
      expect(Math.log((1 - p) / p)).toBeCloseTo(eps, 10)
    }
    const big = rrLogProbabilities(2000)
    expect(big.logP).toBeCloseTo(-2000, 9)
    expect(big.log1mP).toBe(0)
    expect(Number.isFinite(binaryLogProbabilities(5000, 1, 2).logP)).toBe(true)
  })

  it("Eq. 24 equals the Laplace-difference tail P(Lap - Lap' > t_h - t_l) (numerical integration)", () => {
    for (const [eps, tl, th] of [
      [0.5, 1, 1.7],
      [1, 2, 3],
      [2, 1, 1.05]
    ]) {
      const lambda = tl / eps,
        w = th - tl
      // P(Z1 - Z2 > w) = int f(z2) P(Z1 > w + z2) dz2, midpoint rule on [-60 lambda, 60 lambda].
      const m = 200_000,
        a = -60 * lambda,
        h = (120 * lambda) / m
      let s = 0
      for (let i = 0; i < m; i++) {
        const z = a + (i + 0.5) * h
        const tail = (x: number) => (x >= 0 ? 0.5 * Math.exp(-x / lambda) : 1 - 0.5 * Math.exp(x / lambda))
        s += (Math.exp(-Math.abs(z) / lambda) / (2 * lambda)) * tail(w + z) * h
      }
      expect(binaryErrorBound(eps, tl, th)).toBeCloseTo(s, 6)
    }
  })

  it('the binarised oracle errs at most as often as the Eq. 24 bound (binomial test, fixed seed)', () => {
    // 6 settings x 2 checks; one-sided binomial checks at alpha = 1e-4 / 12 each (Bonferroni), normal approximation
    // (m p >= 500 in every setting, so the approximation is good at this z).
    const z = normalUpperQuantile(1e-4 / 12)
    const m = 40_000
    const rng = seededRng('eq24')
    for (const [eps, tl, th] of [
      [0.5, 1, 2],
      [1, 1, 1.7],
      [1, 10, 10.2],
      [2, 1, 1.5],
      [0.2, 3, 6],
      [4, 1, 1.3]
    ]) {
      const o = prepareOracle({ kind: 'binary', eps, tLow: tl, tHigh: th })
      const p = binaryErrorBound(eps, tl, th)
      const sd = Math.sqrt(m * p * (1 - p))
      // (a) Worst case allowed by the data model: H(Q) = t_h, H(Qbar) = t_l; the error rate is exactly p.
      // (b) Real-looking data: the anomaly above t_h, the other side's max anywhere in [0, t_l]; the rate must not exceed p.
      let errWorst = 0,
        errReal = 0
      for (let i = 0; i < m; i++) {
        const anomalyInQ = rng.next() < 0.5
        const u = askOracle(o, anomalyInQ ? th : tl, anomalyInQ ? tl : th, rng)
        if (u.inQ > u.outQ !== anomalyInQ) errWorst++
        const xStar = th + rng.next() * (th - tl),
          normal = rng.next() * tl
        const v = askOracle(o, anomalyInQ ? xStar : normal, anomalyInQ ? normal : xStar, rng)
        if (v.inQ > v.outQ !== anomalyInQ) errReal++
      }
      expect(errWorst).toBeLessThanOrEqual(m * p + z * sd)
      expect(errWorst).toBeGreaterThanOrEqual(m * p - z * sd) // the bound is tight at the boundary of the model
      expect(errReal).toBeLessThanOrEqual(m * p + z * sd)
    }
  })

  it('direct oracle: the Eq. 11 log-likelihood difference favours the side holding the anomaly', () => {
    const o = prepareOracle({ kind: 'direct', eps: 1, tLow: 1, tHigh: 2 })
    const rng = seededRng('direct')
    let favour = 0
    const m = 2000
    for (let i = 0; i < m; i++) {
      const u = askOracle(o, 3, 0.5, rng)
      if (u.inQ > u.outQ) favour++
      // each increment is -(eps/t_l) times a sum of two absolute deviations; their difference is at most 2 eps r
      expect(Math.abs(u.inQ - u.outQ)).toBeLessThanOrEqual(2 * 1 * 1 + 1e-12)
    }
    expect(favour / m).toBeGreaterThan(0.6)
  })

  it('rejects a zero sensitivity, inverted thresholds and non-positive eps', () => {
    expect(() => prepareOracle({ kind: 'direct', eps: 1, tLow: 0, tHigh: 1 })).toThrow(RangeError)
    expect(() => prepareOracle({ kind: 'rr', eps: 1, tLow: 2, tHigh: 1 })).toThrow(RangeError)
    expect(() => prepareOracle({ kind: 'binary', eps: 0, tLow: 1, tHigh: 2 })).toThrow(RangeError)
  })

  it('the direct oracle: a maximum of 1e20 updates like any maximum far above t_h (the difference is neither rounded away nor infinite)', () => {
    const o = prepareOracle({ kind: 'direct', eps: 1, tLow: 5, tHigh: 10 })
    const tiny = prepareOracle({ kind: 'direct', eps: 0.5, tLow: 0.01, tHigh: 0.02 })
    for (let s = 1; s <= 50; s++) {
      const huge = askOracle(o, 1e20, 0, seededRng(`huge-${s}`))
      const far = askOracle(o, 1e6, 0, seededRng(`huge-${s}`))
      expect(huge.inQ - huge.outQ).toBe(far.inQ - far.outQ)
      // d(y) = t_l - t_h for y above t_h, so the members of Q gain k (t_h - t_l + d(yBar)) >= 0.
      expect(huge.inQ - huge.outQ).toBeGreaterThanOrEqual(0)
      const top = askOracle(tiny, Number.MAX_VALUE, 0, seededRng(`top-${s}`))
      expect(Number.isFinite(top.inQ - top.outQ)).toBe(true)
    }
  })
})
