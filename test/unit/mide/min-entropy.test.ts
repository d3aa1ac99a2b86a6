import { describe, expect, it } from 'vitest'
import { seededRng } from '../../../src-worker/engine/random'
import { minEntropy, minEntropyLevels, weakPrunedFrom } from '../../../src-worker/engine/mide/min-entropy'

const h = (p: number) => (p > 0 ? -p * Math.log(p) : 0)

/** Brute force over all vertices (every p_i at a bound except one free), bounds straight from Lemma 7 (no log-space). */
function bruteForce(eps: number[]): number {
  const k = eps.length
  let A = 0,
    B = 0
  for (const e of eps) {
    A += Math.exp(e)
    B += Math.exp(-e)
  }
  const lo = eps.map((e) => Math.exp(-e) / A)
  const up = eps.map((e) => Math.min(1, Math.exp(e) / B))
  let best = Infinity
  for (let f = 0; f < k; f++) {
    for (let mask = 0; mask < 1 << (k - 1); mask++) {
      let s = 0,
        v = 0,
        bit = 0
      for (let i = 0; i < k; i++) {
        if (i === f) continue
        const p = (mask >> bit++) & 1 ? up[i] : lo[i]
        s += p
        v += h(p)
      }
      const pf = 1 - s
      if (pf < lo[f] - 1e-12 || pf > up[f] + 1e-12) continue
      v += h(pf)
      if (v < best) best = v
    }
  }
  return best
}

describe('MinEnt (exact, by levels)', () => {
  it('equals brute-force vertex enumeration on hundreds of random instances (k <= 12, repeated eps, capped bounds)', () => {
    const rng = seededRng('minent-bf')
    let capped = 0
    for (let it = 0; it < 400; it++) {
      const k = 1 + Math.floor(rng.next() * 12)
      const nLevels = 1 + Math.floor(rng.next() * Math.min(k, 5))
      const scale = [0.05, 0.5, 2, 6][it % 4]
      const levels = Array.from({ length: nLevels }, () => rng.next() * scale)
      const eps = Array.from({ length: k }, () => levels[Math.floor(rng.next() * nLevels)])
      let B = 0
      for (const e of eps) B += Math.exp(-e)
      if (eps.some((e) => Math.exp(e) / B > 1)) capped++
      const res = minEntropy(eps)
      expect(res.exact).toBe(true)
      expect(Math.abs(res.gamma - bruteForce(eps))).toBeLessThan(1e-9)
      // the returned p is feasible and has that entropy
      let s = 0,
        v = 0
      for (const p of res.p) {
        s += p
        v += h(p)
      }
      expect(Math.abs(s - 1)).toBeLessThan(1e-9)
      expect(Math.abs(v - res.gamma)).toBeLessThan(1e-9)
    }
    expect(capped).toBeGreaterThan(20) // the instances do exercise the cap u_i = 1
  })

  it('levels and per-predicate inputs agree; levels may be split', () => {
    const eps = [0.2, 0.2, 0.2, 1.5, 1.5, 3, 0.2]
    const a = minEntropy(eps)
    const b = minEntropyLevels([
      { epsilon: 0.2, count: 2 },
      { epsilon: 1.5, count: 2 },
      { epsilon: 3, count: 1 },
      { epsilon: 0.2, count: 2 }
    ])
    expect(b.gamma).toBeCloseTo(a.gamma, 12)
    expect(a.k).toBe(7)
    expect(a.normalized).toBeCloseTo(a.gamma / Math.log(7), 12)
  })

  it('gives ln k at eps = 0 (no information) and 0 for a single predicate', () => {
    const r = minEntropy(new Array(9).fill(0))
    expect(r.gamma).toBeCloseTo(Math.log(9), 12)
    expect(r.normalized).toBeCloseTo(1, 12)
    const one = minEntropy([0.7])
    expect(one.gamma).toBe(0)
    expect(one.normalized).toBe(0)
  })

  it('a node budget returns a vertex value above a certified lower bound', () => {
    const rng = seededRng('budget')
    const eps = Array.from({ length: 20 }, () => 0.01 + 0.1 * rng.next())
    const exact = minEntropy(eps)
    const cut = minEntropy(eps, { maxNodes: 5 })
    expect(cut.lowerBound).toBeLessThanOrEqual(exact.gamma + 1e-12)
    expect(cut.gamma).toBeGreaterThanOrEqual(exact.gamma - 1e-12)
  })

  it('starts from the vertex nearest the relaxation: an input whose minimum the search reached last is proved in a few nodes', () => {
    // PPWLM's ex-post levels from the mide preset (taxi, eps_1 1e-5, m 12): the minimum puts one predicate of the top
    // level at its upper bound and a second one free; the counts tried first fill the other levels. Without the
    // incumbent the search needs about 37,000 nodes and a budget of 20,000 stops it above the minimum.
    const levels = [
      [0.00001, 7],
      [0.000032837754976823325, 14],
      [0.0001078318151917885, 15],
      [0.00035409547259740453, 190],
      [0.0011627700367556027, 444],
      [0.003818275756137232, 488],
      [0.012538360371397925, 211],
      [0.04117316056870765, 83],
      [0.13520341583766252, 26],
      [0.4439776641306716, 7],
      [1.4579229749905354, 1],
      [4.787491742782046, 2]
    ].map(([epsilon, count]) => ({ epsilon, count }))
    const r = minEntropyLevels(levels, { maxNodes: 10 })
    expect(r.exact).toBe(true)
    expect(r.gamma).toBe(minEntropyLevels(levels).gamma)
    expect(r.levels.map((l) => l.atUpper)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    expect(r.levels[11].free).not.toBeNull()
  })

  it('skips only counts whose weak bound the count loop would prune (its own floating-point computation, every count checked)', () => {
    // Levels as MinEnt meets them: D and the rates near-equal (the slow corner) or far apart, costs of either sign.
    const rng = seededRng('weak-pruned-from')
    let skipped = 0
    let cases = 0
    const wrong: string[] = []
    for (let run = 0; run < 20000; run++) {
      const d = 10 ** (-6 + 5 * rng.next())
      const rho = (rng.next() < 0.2 ? -1 : 1) * (0.5 + 7 * rng.next())
      const ct = d * rho * (1 + [1e-3, 1e-9, 1e-13][Math.floor(rng.next() * 3)] * rng.next())
      const cTop = 1 + Math.floor(rng.next() * 2000)
      const R = d * (cTop + rng.next() * 50)
      const room = d * (1 + rng.next() * 100)
      const C = (rng.next() - 0.5) * 10
      // a threshold where the bound crosses it somewhere in [0, cTop], or just beside an end
      const cCross = (rng.next() * 1.2 - 0.1) * cTop
      const thr = C + cCross * ct + (R - cCross * d) * rho
      const lo = weakPrunedFrom(C, R, d, ct, rho, room, cTop, thr)
      if (!(lo >= 0 && lo <= cTop + 1)) wrong.push(`run ${run}: lo ${lo}`)
      for (let c = lo; c <= cTop; c++) {
        const Ra = Math.max(0, R - c * d)
        const weak = 0 + Math.min(room, Ra) * rho
        if (!(Ra < room && C + c * ct + weak >= thr)) wrong.push(`run ${run}: count ${c} of ${lo}..${cTop}`)
      }
      skipped += cTop + 1 - lo
      cases += lo <= cTop ? 1 : 0
    }
    expect(wrong.slice(0, 5)).toEqual([])
    expect(cases).toBeGreaterThan(2000)
    expect(skipped).toBeGreaterThan(100000)
  })

  it('handles large k and large eps without overflow', () => {
    const r = minEntropyLevels([
      { epsilon: 800, count: 3 },
      { epsilon: 1e-5, count: 10000 }
    ])
    expect(Number.isFinite(r.gamma)).toBe(true)
    expect(r.gamma).toBeGreaterThanOrEqual(0)
  })
})
