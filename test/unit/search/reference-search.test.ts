import { describe, expect, it } from 'vitest'
import { seededRng } from '../../../src-worker/engine/random'
import type { SearchParams } from '../../../src-worker/engine/search/private-binary-search'
import { privateBinarySearch } from '../../../src-worker/engine/search/private-binary-search'
import { LogPosterior } from '../../../src-worker/engine/search/log-posterior'
import { type PackedParts, partWords, setPart } from '../../../src-worker/engine/search/packed-parts'
import { medianSplit, referenceBinarySearch } from '../../../src-worker/engine/search/reference-search'
import { synthetic } from './synthetic'

const params = (over: Partial<SearchParams> = {}): SearchParams => ({
  epsilon: 1,
  tLow: 1,
  tHigh: 2,
  oracle: 'direct',
  top: 3,
  halting: { tau: 0.9, maxQueries: 60 },
  ...over
})

/** Q in the fast path's packed layout: part 0 for members, part 1 for the others, so Q = {i : part < 1}. */
function packed(inQuery: Uint8Array): PackedParts {
  const parts = new Int32Array(partWords(inQuery.length))
  for (let i = 0; i < inQuery.length; i++) setPart(parts, i, inQuery[i] === 1 ? 0 : 1)
  return parts
}

describe('reference search (the paper steps, plain)', () => {
  for (const oracle of ['direct', 'binary', 'rr'] as const) {
    it(`gives the same posterior sequence as the fast path's updates (packed and unpacked), oracle ${oracle}`, () => {
      const x = synthetic(37, 5, `ref-${oracle}`)
      const ref = referenceBinarySearch(x, params({ oracle }), seededRng(`run-${oracle}`))
      expect(ref.rounds.length).toBeGreaterThan(3)
      const fast = new LogPosterior(x.length)
      const plain = new LogPosterior(x.length)
      for (const round of ref.rounds) {
        fast.updateSplit(packed(round.inQuery), 1, round.update.inQ - round.update.outQ)
        plain.update(round.inQuery, round.update.inQ, round.update.outQ)
        for (let i = 0; i < x.length; i++) {
          expect(Math.abs(fast.probability(i) - round.posterior[i])).toBeLessThan(1e-12)
          expect(Math.abs(plain.probability(i) - round.posterior[i])).toBeLessThan(1e-12)
        }
      }
    })
  }

  it('splits at the median: Q stays below half, or crosses it by less than it would fall short', () => {
    const rng = seededRng('split')
    for (let t = 0; t < 200; t++) {
      const w = Float64Array.from({ length: 1 + (t % 17) }, () => rng.next() ** 3)
      const total = w.reduce((a, b) => a + b, 0)
      const f = w.map((v) => v / total)
      const q = medianSplit(f, rng)
      const mass = f.reduce((a, v, i) => a + (q[i] === 1 ? v : 0), 0)
      // Q is a prefix below half plus, when closer to half, the individual crossing it: some individual c witnesses that.
      const crossing = [...f.keys()].some((c) =>
        q[c] === 1
          ? mass - f[c] < 0.5 && mass >= 0.5 && Math.abs(mass - 0.5) < Math.abs(mass - f[c] - 0.5)
          : mass < 0.5 && mass + f[c] >= 0.5 && Math.abs(mass + f[c] - 0.5) >= Math.abs(mass - 0.5)
      )
      expect(crossing).toBe(true)
    }
  })

  it('finds the anomaly as often as the fast path (same distribution; 200 runs each, binomial bound)', () => {
    const x = synthetic(64, 17, 'dist')
    const p = params({ epsilon: 0.6, halting: { tau: 0.5, maxQueries: 200 } })
    const runs = 200
    let refHits = 0
    let fastHits = 0
    for (let s = 0; s < runs; s++) {
      if (referenceBinarySearch(x, p, seededRng(`r${s}`)).top[0] === 17) refHits++
      if (privateBinarySearch(x, p, seededRng(`f${s}`)).top[0] === 17) fastHits++
    }
    const pooled = (refHits + fastHits) / (2 * runs)
    // Two-sample difference of proportions: |d| <= 4.4 sd (alpha about 1e-5).
    const bound = 4.4 * Math.sqrt((pooled * (1 - pooled) * 2) / runs) + 1e-9
    expect(Math.abs(refHits - fastHits) / runs).toBeLessThanOrEqual(bound)
    expect(refHits / runs).toBeGreaterThan(0.5)
  })
})
