import { describe, expect, it } from 'vitest'
import { SecureRandom, assertSecure, laplace, seededRng, permutation } from '../../src-worker/engine/random'

// Kolmogorov-Smirnov critical value at alpha = 1e-4: c(alpha) = sqrt(-ln(alpha/2)/2) ~= 2.2, D_crit = c / sqrt(n).
function ksStatistic(sample: number[], cdf: (x: number) => number): number {
  const s = [...sample].sort((a, b) => a - b)
  let d = 0
  for (let i = 0; i < s.length; i++) {
    const f = cdf(s[i])
    d = Math.max(d, (i + 1) / s.length - f, f - i / s.length)
  }
  return d
}
const laplaceCdf = (b: number) => (x: number) => (x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b))
const ksCritical = (n: number, alpha = 1e-4) => Math.sqrt(-Math.log(alpha / 2) / 2) / Math.sqrt(n)

describe('random', () => {
  it('seeded generator is reproducible and seed-dependent', () => {
    const a = seededRng(42), b = seededRng(42), c = seededRng(43)
    const xa = Array.from({ length: 5 }, () => a.next())
    const xb = Array.from({ length: 5 }, () => b.next())
    const xc = Array.from({ length: 5 }, () => c.next())
    expect(xa).toEqual(xb)
    expect(xa).not.toEqual(xc)
  })

  it('Laplace samples pass a KS test for both generators', () => {
    const n = 20000
    for (const rng of [seededRng('ks'), SecureRandom.create()]) {
      const s = Array.from({ length: n }, () => laplace(rng, 2))
      expect(ksStatistic(s, laplaceCdf(2))).toBeLessThan(ksCritical(n))
    }
  })

  it('secure generator cannot be built from a seed and seeded ones are refused by release guards', () => {
    expect(() => new (SecureRandom as unknown as new (x: unknown) => SecureRandom)(42)).toThrow(/cannot be constructed/)
    expect(() => assertSecure(seededRng(1))).toThrow(/secure generator/)
    expect(() => assertSecure(SecureRandom.create())).not.toThrow()
  })

  it('secure uniforms are in [0,1) and their mean is within a 1e-4 two-sided normal bound', () => {
    const rng = SecureRandom.create()
    const n = 100000
    let sum = 0
    for (let i = 0; i < n; i++) {
      const u = rng.next()
      expect(u >= 0 && u < 1).toBe(true)
      sum += u
    }
    // sd of the mean = sqrt(1/12/n); z(1e-4 two-sided) ~= 3.89
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(3.89 * Math.sqrt(1 / 12 / n))
  })

  it('permutation is a permutation', () => {
    const p = permutation(seededRng(7), 1000)
    expect(new Set(p).size).toBe(1000)
    expect(Math.max(...p)).toBe(999)
  })
})
