import { describe, expect, it } from 'vitest'
import { seededRng } from '../../../src-worker/engine/random'
import { StayPredictor, predictUndecided } from '../../../src-worker/engine/mide/predicted-stay'

const rounded = (undecided: Int32Array, noisy: Float64Array, thresholds: Float64Array, alpha: number, cur: number, next: number) =>
  Math.min(undecided.length, Math.max(0, Math.round(predictUndecided(undecided, noisy, thresholds, alpha, cur, next))))

// DPPWLM's choice depends on Eq. 12 only through the rounded count: the predictor must give exactly that whole number.
describe('Eq. 12 rounded, for the candidates of a step', () => {
  it('equals predictUndecided rounded on random steps (eps from 1e-5 to 5, predicates near and far from their thresholds)', () => {
    const rng = seededRng('predicted-stay')
    let candidates = 0
    for (let run = 0; run < 300; run++) {
      const k = 1 + Math.floor(rng.next() * 400)
      const cur = 10 ** (-5 + 5 * rng.next())
      const spread = (rng.next() < 0.5 ? 1 : 20) / cur
      const thresholds = Float64Array.from({ length: k }, () => Math.floor(rng.next() * 50))
      const noisy = Float64Array.from({ length: k }, (_, i) => thresholds[i] + (rng.next() - 0.5) * spread)
      const undecided = Int32Array.from({ length: k }, (_, i) => i).filter(() => rng.next() < 0.8)
      const predictor = new StayPredictor(undecided, noisy, thresholds, cur)
      for (let c = 0; c < 6; c++) {
        const next = cur * (1 + 10 ** (-3 + 4 * rng.next()))
        const alpha = Math.log(1 / (2 * (0.01 + 0.2 * rng.next()))) / next
        expect(predictor.stay(alpha, next)).toBe(rounded(undecided, noisy, thresholds, alpha, cur, next))
        candidates++
      }
      expect(predictor.fallbacks).toBe(0)
    }
    expect(candidates).toBe(1800)
  })

  it('a sum too close to a half-integer is computed by predictUndecided itself', () => {
    // One predicate at the distance x from its threshold where its term is 1/2 (bisection): the sum is within rounding
    // of 0.5, so only predictUndecided's own sum says which way it rounds.
    const cur = 0.01
    const next = 0.03
    const alpha = Math.log(1 / (2 * 0.01)) / next
    const term = (x: number) => predictUndecided([0], [0], [x], alpha, cur, next)
    expect(term(0)).toBeGreaterThan(0.5)
    let lo = 0
    let hi = 1e4
    for (let j = 0; j < 200; j++) {
      const mid = (lo + hi) / 2
      if (term(mid) > 0.5) lo = mid
      else hi = mid
    }
    for (const x of [lo, hi]) {
      expect(Math.abs(term(x) - 0.5)).toBeLessThan(1e-15)
      const undecided = Int32Array.from([0])
      const noisy = new Float64Array(1)
      const thresholds = Float64Array.from([x])
      const predictor = new StayPredictor(undecided, noisy, thresholds, cur)
      expect(predictor.stay(alpha, next)).toBe(rounded(undecided, noisy, thresholds, alpha, cur, next))
      expect(predictor.fallbacks).toBe(1)
    }
  })
})
