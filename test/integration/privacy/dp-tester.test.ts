/** The tester's own arithmetic, against values computed independently (R: binom.test / qbeta). */
import { describe, expect, it } from 'vitest'
import { betaInc, clopperPearson, epsilonLowerBound, lnGamma } from './dp-tester'

describe('dp-tester arithmetic', () => {
  it('lnGamma and the incomplete beta function', () => {
    expect(lnGamma(1)).toBeCloseTo(0, 12)
    expect(lnGamma(10)).toBeCloseTo(Math.log(362880), 10)
    expect(lnGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12)
    // I_x(1, 1) = x; I_x(a, 1) = x^a; symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
    expect(betaInc(0.3, 1, 1)).toBeCloseTo(0.3, 12)
    expect(betaInc(0.6, 3, 1)).toBeCloseTo(0.216, 12)
    expect(betaInc(0.2, 7, 3) + betaInc(0.8, 3, 7)).toBeCloseTo(1, 12)
  })
  it('Clopper-Pearson bounds', () => {
    // 5 of 10 at 95% two-sided: (0.187086, 0.812914).
    const ci = clopperPearson(5, 10, 0.025)
    expect(ci.lo).toBeCloseTo(0.187086, 5)
    expect(ci.hi).toBeCloseTo(0.812914, 5)
    // k = 0: upper bound 1 - alpha^(1/n).
    expect(clopperPearson(0, 100, 0.01).hi).toBeCloseTo(1 - 0.01 ** (1 / 100), 10)
    expect(clopperPearson(0, 100, 0.01).lo).toBe(0)
    expect(clopperPearson(100, 100, 0.01).hi).toBe(1)
  })
  it('the epsilon bound is 0 for equal counts and grows with the ratio', () => {
    expect(epsilonLowerBound({ nA: 1000, kA: 500, nB: 1000, kB: 500 }, 0.01)).toBe(0)
    const big = epsilonLowerBound({ nA: 100_000, kA: 50_000, nB: 100_000, kB: 5_000 }, 1e-4)
    expect(big).toBeGreaterThan(Math.log(10) - 0.1)
    expect(big).toBeLessThan(Math.log(10))
  })
})
