import { describe, expect, it } from 'vitest'
import { fitSuggestion, nearestFit, roundToDigits, tradeoffCurve } from '../../src-main/services/releases/fit-suggestion'
import { thresholdCharge } from '../../src-worker/engine/mide/params'

/** The threshold price as the ledger charges it: the mechanism's epsilon per unit of sensitivity, rounded up to a nano. */
function thresholdPrice(mechanism: 'tslm' | 'ppwlm', s: number, groups: number) {
  return (alpha: number, beta: number) =>
    Math.ceil(thresholdCharge(mechanism, { alpha: alpha / s, beta, epsMax: 1e9, eps1: 1e-5, steps: 4, fineSteps: 3 }).epsilon * 1e9 - 1e-6) * groups
}

describe('nearest accuracy that fits what is left', () => {
  it('rounds to significant digits in the asked direction', () => {
    expect(roundToDigits(3.0001, 2, 'up')).toBe(3.1)
    expect(roundToDigits(3.1, 2, 'up')).toBe(3.1)
    expect(roundToDigits(0.3149, 2, 'down')).toBe(0.31)
    expect(roundToDigits(199.2, 2, 'up')).toBe(200)
  })

  for (const [mechanism, s, groups, remaining] of [
    ['tslm', 1, 1, 0.39],
    ['tslm', 3, 1, 0.697414],
    ['ppwlm', 1, 6, 1.2],
    ['ppwlm', 2, 1, 0.05]
  ] as const) {
    it(`${mechanism}, sensitivity ${s}, ${groups} group(s), ${remaining} left: the suggested alpha fits and the next stronger one does not`, () => {
      const price = thresholdPrice(mechanism, s, groups)
      const remainingNano = Math.round(remaining * 1e9)
      const fit = nearestFit({ current: 1, weaker: 'larger', remainingNano, priceNano: (a) => price(a, 0.05) })!
      expect(fit).not.toBeNull()
      expect(price(fit.value, 0.05)).toBeLessThanOrEqual(remainingNano)
      // One step in the second significant digit stronger (smaller alpha) does not fit.
      const step = 10 ** (Math.floor(Math.log10(fit.value)) - 1)
      expect(price(fit.value - step, 0.05)).toBeGreaterThan(remainingNano)
      expect(fit.value).toBeGreaterThan(1)
    })
  }

  it('beta is searched below 0.5 only; nothing fits when even beta near 0.5 is too dear', () => {
    const price = thresholdPrice('tslm', 1, 1)
    // ln(1/(2 beta)) / alpha: at alpha 1, beta 0.05 costs 2.303; 0.39 left needs beta >= e^-0.39 / 2 = 0.3385.
    const fit = nearestFit({ current: 0.05, weaker: 'larger', bound: 0.5, remainingNano: 390_000_000, priceNano: (b) => price(1, b) })!
    expect(fit.value).toBe(0.34)
    expect(price(1, 0.33)).toBeGreaterThan(390_000_000)
    // PPWLM's final step ln(m/(2 beta)) stays above ln(4) at any beta < 0.5: 0.39 at alpha 1 never fits.
    const pp = thresholdPrice('ppwlm', 1, 1)
    expect(nearestFit({ current: 0.05, weaker: 'larger', bound: 0.5, remainingNano: 390_000_000, priceNano: (b) => pp(1, b) })).toBeNull()
  })

  it('epsilon per record is searched downwards; the suggestion fits and the next larger one does not', () => {
    const records = 7
    const price = (eps: number) => Math.ceil(eps * 1e9) * records
    const fit = nearestFit({ current: 1, weaker: 'smaller', remainingNano: 2_000_000_000, priceNano: price })!
    expect(fit.value).toBe(0.28)
    expect(price(0.29)).toBeGreaterThan(2_000_000_000)
  })

  it('says nothing when the request already fits, when nothing is left, or when there is no budget', () => {
    const price = thresholdPrice('tslm', 1, 1)
    expect(nearestFit({ current: 10, weaker: 'larger', remainingNano: 1e9, priceNano: (a) => price(a, 0.05) })).toBeNull()
    const params = { kind: 'threshold' as const, alpha: 1, beta: 0.05 }
    expect(fitSuggestion(params, 0, (p) => price(p.alpha, p.beta))).toBeNull()
    expect(fitSuggestion(params, null, (p) => price(p.alpha, p.beta))).toBeNull()
  })

  it('the sentence names alpha and beta with what is left; a price that throws counts as not fitting', () => {
    const price = thresholdPrice('tslm', 1, 1)
    const r = fitSuggestion({ kind: 'threshold', alpha: 1, beta: 0.05 }, 390_000_000, (p) => {
      if (p.alpha > 1000) throw new Error('eps-max')
      return price(p.alpha, p.beta)
    })!
    expect(r.sentence).toBe('What fits: alpha >= 6 fits the 0.39 left (costs 0.383765) at beta 0.05; or beta >= 0.34 at alpha 1 (costs 0.385663).')
    expect(r.fits.map((f) => f.param)).toEqual(['alpha', 'beta'])
  })

  it("alpha is proposed only below the kind's bound (2 alpha under the smallest public threshold); the rest still fits", () => {
    const price = thresholdPrice('tslm', 1, 1)
    const params = { kind: 'threshold' as const, alpha: 1, beta: 0.05 }
    const unbounded = fitSuggestion(params, 390_000_000, (p) => price(p.alpha, p.beta))!
    expect(unbounded.fits.find((f) => f.param === 'alpha')!.value).toBe(6)
    // Smallest threshold 4: alpha stays below 2, so alpha 6 (a tolerance of 12) is not proposed.
    const why = 'below 2 (half the smallest threshold, 4)'
    const bounded = fitSuggestion(params, 390_000_000, (p) => price(p.alpha, p.beta), { alphaBelow: 2, alphaWhy: why })!
    expect(bounded.fits.map((f) => f.param)).toEqual(['beta'])
    expect(bounded.sentence).toBe(`What fits: no alpha fits ${why}; or beta >= 0.34 at alpha 1 (costs 0.385663).`)
    // A bound the needed alpha lies under: proposed as before.
    expect(fitSuggestion(params, 390_000_000, (p) => price(p.alpha, p.beta), { alphaBelow: 10 })!.fits[0]).toMatchObject({ param: 'alpha', value: 6 })
    // Alternatives that need a new query come last; alone with the reason, the sentence says nothing fits as asked.
    const alt = fitSuggestion({ kind: 'threshold', alpha: 1, beta: 0.4999 }, 1_000, (p) => price(p.alpha, p.beta), {
      alphaBelow: 0.5,
      alphaWhy: why,
      alternatives: () => ['save the query with maxGroups 1 (costs 0.001)']
    })!
    expect(alt.sentence).toBe(`What fits: no alpha fits ${why}; or save the query with maxGroups 1 (costs 0.001).`)
    expect(
      fitSuggestion({ kind: 'threshold', alpha: 1, beta: 0.4999 }, 1_000, (p) => price(p.alpha, p.beta), { alphaBelow: 0.5, alphaWhy: why })!.sentence
    ).toBe(`Nothing fits what is left: no alpha fits ${why}.`)
  })

  it('the trade-off curve prices alphas from 1/8 to 16 times the current one, falling, and leaves out refused values', () => {
    const price = thresholdPrice('tslm', 1, 1)
    const c = tradeoffCurve({ kind: 'threshold', alpha: 2, beta: 0.05 }, (p) => {
      if (p.alpha < 0.5) throw new Error('eps-max')
      return price(p.alpha, p.beta)
    })!
    expect(c.points.map((q) => q.value)).toEqual([0.5, 1, 2, 4, 8, 16, 32])
    for (let i = 1; i < c.points.length; i++) expect(c.points[i].epsilon).toBeLessThan(c.points[i - 1].epsilon)
    expect(c.points[2].epsilon).toBeCloseTo(Math.log(10) / 2, 8)
    expect(tradeoffCurve({ kind: 'anomaly-identification', epsilon: 1 }, () => 1)).toBeNull()
  })
})
