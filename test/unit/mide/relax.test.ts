import { describe, expect, it } from 'vitest'
import { laplace, seededRng } from '../../../src-worker/engine/random'
import { relaxNoise } from '../../../src-worker/engine/mide/relax'
import { binomialLowerTail, binomialUpperTail, ksCritical, ksStatistic, laplaceCdf, normalQuantile } from './stats'

// Three settings x three checks (KS, P(v2 = v1), correlation) = 9 checks; family level 1e-3 -> 1.1e-4 per check (Bonferroni).
const PER_CHECK = 1e-3 / 9

describe('noise relaxation (exact conditional law)', () => {
  for (const [e1, e2] of [
    [0.5, 1.5],
    [0.1, 0.2],
    [1, 8]
  ] as const) {
    it(`e1=${e1} -> e2=${e2}: v2 ~ Lap(1/e2), P(v2=v1) = (e1/e2)^2, corr = e1/e2`, () => {
      const n = 40000
      const rng = seededRng(`relax/${e1}/${e2}`)
      const v1 = new Float64Array(n)
      const v2 = new Float64Array(n)
      let same = 0
      for (let i = 0; i < n; i++) {
        v1[i] = laplace(rng, 1 / e1)
        v2[i] = relaxNoise(rng, v1[i], e1, e2)
        if (v2[i] === v1[i]) same++
      }
      // marginal
      expect(ksStatistic(v2, laplaceCdf(1 / e2))).toBeLessThan(ksCritical(n, PER_CHECK))
      // P(v2 = v1): two-sided exact binomial test
      const p = (e1 / e2) ** 2
      expect(binomialUpperTail(n, p, same)).toBeGreaterThan(PER_CHECK / 2)
      expect(binomialLowerTail(n, p, same)).toBeGreaterThan(PER_CHECK / 2)
      // correlation: Fisher z, standard error 1/sqrt(n-3) (Laplace tails are light enough for n = 40000)
      let m1 = 0, m2 = 0
      for (let i = 0; i < n; i++) { m1 += v1[i]; m2 += v2[i] }
      m1 /= n; m2 /= n
      let s11 = 0, s22 = 0, s12 = 0
      for (let i = 0; i < n; i++) {
        s11 += (v1[i] - m1) ** 2; s22 += (v2[i] - m2) ** 2; s12 += (v1[i] - m1) * (v2[i] - m2)
      }
      const r = s12 / Math.sqrt(s11 * s22)
      const z = Math.abs(Math.atanh(r) - Math.atanh(e1 / e2)) * Math.sqrt(n - 3)
      // the heavy-ish tails inflate the variance of r: allow a factor 2 on the standard error
      expect(z).toBeLessThan(2 * normalQuantile(1 - PER_CHECK / 2))
    })
  }

  it('keeps the sign (the published sampler drops it: its mean is ~0.39 at e1=0.5, e2=1.5)', () => {
    const n = 40000
    const rng = seededRng('relax-mean')
    let s = 0
    for (let i = 0; i < n; i++) s += relaxNoise(rng, laplace(rng, 2), 0.5, 1.5)
    // sd of Lap(1/1.5) is sqrt(2)/1.5 ~ 0.943; 6 standard errors
    expect(Math.abs(s / n)).toBeLessThan((6 * 0.943) / Math.sqrt(n))
  })

  it('refuses to relax towards a smaller epsilon and is the identity at equal epsilons', () => {
    const rng = seededRng(1)
    expect(() => relaxNoise(rng, 1, 1, 0.5)).toThrow(/smaller to a larger/)
    expect(relaxNoise(rng, 0.7, 1, 1)).toBe(0.7)
  })
})
