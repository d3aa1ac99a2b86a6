import { describe, expect, it } from 'vitest'
import seedrandom from 'seedrandom'
import { SecureRandom, assertSecure, keepRandomSubset, laplace, seededRng, permutation } from '../../src-worker/engine/random'

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
    const a = seededRng(42),
      b = seededRng(42),
      c = seededRng(43)
    const xa = Array.from({ length: 5 }, () => a.next())
    const xb = Array.from({ length: 5 }, () => b.next())
    const xc = Array.from({ length: 5 }, () => c.next())
    expect(xa).toEqual(xb)
    expect(xa).not.toEqual(xc)
  })

  it('Laplace samples pass a KS test (seeded generator, fixed seed)', () => {
    const n = 20000
    const rng = seededRng('ks')
    const s = Array.from({ length: n }, () => laplace(rng, 2))
    expect(ksStatistic(s, laplaceCdf(2))).toBeLessThan(ksCritical(n))
  })

  it('secure generator cannot be built from a seed and seeded ones are refused by release guards', () => {
    expect(() => new (SecureRandom as unknown as new (x: unknown) => SecureRandom)(42)).toThrow(/cannot be constructed/)
    expect(() => assertSecure(seededRng(1))).toThrow(/secure generator/)
    expect(() => assertSecure(SecureRandom.create())).not.toThrow()
  })

  it('secure uniforms are in [0,1), use 53 bits, and are not constant', () => {
    // The secure generator cannot be seeded, so no statistical test runs on it here (it would not be reproducible);
    // its structure is checked instead, and Laplace sampling is tested on the seeded generator above.
    const rng = SecureRandom.create()
    const xs = Array.from({ length: 10000 }, () => rng.next())
    expect(xs.every((u) => u >= 0 && u < 1)).toBe(true)
    expect(new Set(xs).size).toBe(xs.length)
    // 53-bit doubles: multiplying by 2^53 gives whole numbers; with 10,000 draws some need more than 32 bits.
    expect(xs.every((u) => Number.isInteger(u * 2 ** 53))).toBe(true)
    expect(xs.some((u) => (u * 2 ** 53) % 2 ** 21 !== 0)).toBe(true)
  })

  it("the seeded generator is seedrandom's Alea: next() is double(); fillWords interleaves four Alea streams' int32()", () => {
    for (const seed of ['1', 'fig2/rr/7', 'search', '']) {
      const ours = seededRng(seed)
      const ref = seedrandom.alea(seed)
      const streams = [0, 1, 2, 3].map((j) => seedrandom.alea(`${seed}\u0000words\u0000${j}`))
      const words = new Int32Array(37)
      for (let round = 0; round < 50; round++) {
        for (let k = 0; k < 5; k++) expect(ours.next()).toBe(ref.double())
        const count = 3 + (round % 30)
        ours.fillWords(words, count)
        const groups = Math.ceil(count / 4)
        for (let g = 0; g < groups; g++) {
          for (let j = 0; j < 4; j++) {
            const w = streams[j].int32()
            if (4 * g + j < count) expect(words[4 * g + j]).toBe(w)
          }
        }
      }
    }
  })

  it('fillWords: seeded words are reproducible and fill only the requested count; every bit is fair (binomial bound)', () => {
    const a = new Int32Array(10),
      b = new Int32Array(10)
    seededRng('w').fillWords(a, 6)
    seededRng('w').fillWords(b, 6)
    expect(Array.from(a)).toEqual(Array.from(b))
    expect(Array.from(a.subarray(6))).toEqual([0, 0, 0, 0])
    // Each of the 32 bit positions over 20,000 words: |ones - n/2| below the normal bound at alpha = 1e-4 / 64 per
    // position and generator (z = 4.8; Bonferroni over 32 positions x 2 generators). The secure one is not seeded, so
    // its check could fail by chance with probability below 1e-4 overall.
    const n = 20_000
    for (const rng of [seededRng('bits'), SecureRandom.create()]) {
      const words = new Int32Array(n + 5).fill(7)
      rng.fillWords(words, n)
      expect(Array.from(words.subarray(n))).toEqual([7, 7, 7, 7, 7])
      for (let bit = 0; bit < 32; bit++) {
        let ones = 0
        for (let k = 0; k < n; k++) ones += (words[k] >>> bit) & 1
        expect(Math.abs(ones - n / 2), `${rng.kind} bit ${bit}`).toBeLessThan(4.8 * Math.sqrt(n / 4))
      }
    }
  })

  it('permutation is a permutation', () => {
    const p = permutation(seededRng(7), 1000)
    expect(new Set(p).size).toBe(1000)
    expect(Math.max(...p)).toBe(999)
  })
})

describe('keepRandomSubset', () => {
  it('keeps m elements, each m-subset equally likely (chi-square over the 10 subsets of 2 of 5)', () => {
    const rng = seededRng('subset')
    const counts = new Map<string, number>()
    const N = 20_000
    for (let i = 0; i < N; i++) {
      const kept = keepRandomSubset(rng, [0, 1, 2, 3, 4], 2)
      expect(kept).toHaveLength(2)
      const key = [...kept].sort().join(',')
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    expect(counts.size).toBe(10)
    const e = N / 10
    const chi2 = [...counts.values()].reduce((s, c) => s + (c - e) ** 2 / e, 0)
    // chi-square with 9 degrees of freedom: P(X > 33.7) = 1e-4.
    expect(chi2).toBeLessThan(33.7)
    expect(keepRandomSubset(rng, [7, 8], 3)).toEqual([7, 8])
  })
})
