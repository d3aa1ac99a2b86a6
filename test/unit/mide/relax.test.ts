import { describe, expect, it } from 'vitest'
import { drawSampleWords, fillLaplace, uniformFromBits } from '../../../src-worker/engine/batch-samplers'
import { type Rng, laplace, seededRng } from '../../../src-worker/engine/random'
import { relaxInPlace, relaxNoise } from '../../../src-worker/engine/mide/relax'
import { binomialLowerTail, binomialUpperTail, ksCritical, ksStatistic, laplaceCdf, normalQuantile } from './stats'

// Three settings x three checks (KS, P(v2 = v1), correlation), and the batch form's three settings x three checks (KS,
// two binomial tails) = 18 checks; family level 1e-3 -> 5.6e-5 per check (Bonferroni).
const PER_CHECK = 1e-3 / 18

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
      let m1 = 0,
        m2 = 0
      for (let i = 0; i < n; i++) {
        m1 += v1[i]
        m2 += v2[i]
      }
      m1 /= n
      m2 /= n
      let s11 = 0,
        s22 = 0,
        s12 = 0
      for (let i = 0; i < n; i++) {
        s11 += (v1[i] - m1) ** 2
        s22 += (v2[i] - m2) ** 2
        s12 += (v1[i] - m1) * (v2[i] - m2)
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

  // The batch form the mechanisms use: four sample words per value, relaxed in one pass.
  for (const [e1, e2] of [
    [0.5, 1.5],
    [1e-5, 1.5e-3],
    [1, 8]
  ] as const) {
    it(`relaxInPlace e1=${e1} -> e2=${e2}: equals relaxNoise fed the same uniforms; v2 ~ Lap(1/e2), P(v2=v1) = (e1/e2)^2`, () => {
      const n = 40000
      const rng = seededRng(`relax-batch/${e1}/${e2}`)
      const v1 = new Float64Array(n)
      fillLaplace(rng, 1 / e1, v1)
      const v2 = Float64Array.from(v1)
      // every other index, in a scrambled order: the q-th words go to the q-th listed index
      const idx = Int32Array.from({ length: n / 2 }, (_, q) => (q * 7919 * 2) % n)
      const words = Int32Array.from(drawSampleWords(rng, 4 * idx.length))
      relaxInPlace(v2, idx, idx.length, e1, e2, words)
      let same = 0
      let nearBranch = 0
      for (let q = 0; q < idx.length; q++) {
        const i = idx[q]
        const uniforms = [uniformFromBits(words[4 * q], words[4 * q + 1]), uniformFromBits(words[4 * q + 2], words[4 * q + 3])]
        const fed: Rng = {
          kind: 'seeded',
          next: () => uniforms.shift()!,
          fillWords: () => {},
          fillSampleWords: () => {},
          fillLaneWords: () => {},
          laneState: () => null
        }
        const ref = relaxNoise(fed, v1[i], e1, e2)
        if (Math.abs(v2[i] - ref) > 1e-12 * Math.max(1, Math.abs(ref))) nearBranch++ // a branch threshold within rounding
        if (v2[i] === v1[i]) same++
      }
      expect(nearBranch).toBeLessThanOrEqual(1)
      for (let i = 1; i < n; i += 2) expect(v2[i]).toBe(v1[i]) // not listed: untouched
      const relaxed = Float64Array.from(idx, (i) => v2[i])
      expect(ksStatistic(relaxed, laplaceCdf(1 / e2))).toBeLessThan(ksCritical(idx.length, PER_CHECK))
      const p = (e1 / e2) ** 2
      expect(binomialUpperTail(idx.length, p, same)).toBeGreaterThan(PER_CHECK / 2)
      expect(binomialLowerTail(idx.length, p, same)).toBeGreaterThan(PER_CHECK / 2)
    })
  }
})
