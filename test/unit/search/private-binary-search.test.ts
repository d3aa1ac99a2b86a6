import { describe, expect, it } from 'vitest'
import { SecureRandom, seededRng } from '../../../src-worker/engine/random'
import {
  LogPosterior,
  type SearchParams,
  aggregateSearchTrials,
  expectedQueriesBound,
  expectedQueriesBoundAsWritten,
  partitionedSearch,
  privateBinarySearch,
  releaseAnomalySearch,
  rrFlipProbability,
  runSearchTrials,
  searchReleaseCharge,
  snapToGrid
} from '../../../src-worker/engine/search'
import { normalUpperQuantile } from './stats'
import { synthetic } from './synthetic'

const base = (over: Partial<SearchParams> = {}): SearchParams => ({
  epsilon: 1,
  tLow: 1,
  tHigh: 2,
  oracle: 'direct',
  top: 4,
  halting: { tau: 0.5 },
  ...over
})

describe('private binary search', () => {
  it('with a very large eps finds the anomaly in about log2(N) rounds, for every oracle', () => {
    for (const n of [100, 1000, 4096]) {
      const lg = Math.log2(n)
      for (const oracle of ['rr', 'binary', 'direct'] as const) {
        for (let t = 0; t < 5; t++) {
          const anomaly = (t * 7919) % n
          const r = privateBinarySearch(synthetic(n, anomaly, `s${t}`), base({ epsilon: 60, oracle }), seededRng(`big/${n}/${oracle}/${t}`))
          expect(r.top[0]).toBe(anomaly)
          // A noiseless median split leaves between ceil(m/2) - 1 and floor(m/2) + 1 candidates of m.
          expect(r.queries).toBeGreaterThanOrEqual(Math.floor(lg) - 1)
          expect(r.queries).toBeLessThanOrEqual(Math.ceil(lg) + 2)
          expect(r.privacyRisk).toBe(r.queries * 60)
          expect(r.haltedBy).toBe('tau')
        }
      }
    }
  })

  it('with budget halting the total risk never exceeds b, and the budget is used up when nothing else stops', () => {
    const x = synthetic(500, 17, 'budget')
    for (const [eps, b] of [
      [0.1, 0.3],
      [0.3, 1],
      [0.7, 5],
      [1, 1],
      [0.25, 0.2],
      [2, 9.99]
    ]) {
      for (const oracle of ['rr', 'binary', 'direct'] as const) {
        const r = privateBinarySearch(x, base({ epsilon: eps, oracle, halting: { budget: b } }), seededRng(`b/${eps}/${b}/${oracle}`))
        expect(r.privacyRisk).toBeLessThanOrEqual(b * (1 + 1e-9))
        expect(r.queries).toBe(Math.floor(b / eps + 1e-9))
        expect(r.haltedBy).toBe('budget')
        // with tau as well, the budget still bounds the risk
        const r2 = privateBinarySearch(x, base({ epsilon: eps, oracle, halting: { budget: b, tau: 0.9 } }), seededRng(`c/${eps}/${b}`))
        expect(r2.privacyRisk).toBeLessThanOrEqual(b * (1 + 1e-9))
      }
    }
  })

  it('the log-odds rule stops when max log(f / (1 - f)) > log(1/delta)', () => {
    for (const delta of [0.2, 0.01, 1e-6]) {
      const r = privateBinarySearch(synthetic(300, 5, 'd'), base({ epsilon: 0.5, halting: { delta } }), seededRng(`delta/${delta}`))
      expect(r.haltedBy).toBe('delta')
      const f = r.topPosterior[0]
      expect(f).toBeGreaterThan(1 / (1 + delta) - 1e-12)
    }
  })

  it('the log-space posterior stays finite and normalised over thousands of rounds', () => {
    // 5000 rounds without a posterior rule: the anomaly's log-odds grow by thousands of nats, the others underflow in
    // linear space (exp(-1e4) = 0) but keep finite log values.
    for (const oracle of ['rr', 'direct'] as const) {
      const x = synthetic(200, 42, 'long')
      const r = privateBinarySearch(x, base({ epsilon: 2, oracle, halting: { maxQueries: 5000 } }), seededRng(`long/${oracle}`))
      expect(r.queries).toBe(5000)
      expect(r.haltedBy).toBe('maxQueries')
      let s = 0
      for (const v of r.posterior) {
        expect(Number.isFinite(v)).toBe(true)
        expect(v).toBeGreaterThanOrEqual(0)
        s += v
      }
      expect(Math.abs(s - 1)).toBeLessThan(1e-12)
      expect(r.top[0]).toBe(42)
    }
    // LogPosterior against exact arithmetic: 10,000 updates of +-3 nats; ratios must equal exp(difference of the sums).
    const n = 6,
      post = new LogPosterior(n),
      rng = seededRng('lp'),
      sums = new Float64Array(n)
    const mask = new Uint8Array(n)
    for (let t = 0; t < 10_000; t++) {
      for (let i = 0; i < n; i++) mask[i] = rng.next() < 0.5 ? 1 : 0
      const a = (rng.next() - 0.5) * 6,
        b = (rng.next() - 0.5) * 6
      post.update(mask, a, b)
      for (let i = 0; i < n; i++) sums[i] += mask[i] ? a : b
    }
    const top = Math.max(...sums)
    for (let i = 0; i < n; i++) {
      expect(Number.isFinite(post.logF[i])).toBe(true)
      expect(post.logF[i]).toBeCloseTo(sums[i] - top, 6)
    }
    const f = post.toArray()
    expect(Math.abs(f.reduce((s, v) => s + v, 0) - 1)).toBeLessThan(1e-12)
  })

  it('is reproducible from its seed and batch-independent in evaluation', () => {
    const x = synthetic(400, 3, 'rep')
    const a = privateBinarySearch(x, base({ oracle: 'binary' }), seededRng('same'))
    const b = privateBinarySearch(x, base({ oracle: 'binary' }), seededRng('same'))
    expect(a.top).toEqual(b.top)
    expect(a.queries).toBe(b.queries)
    const ev = { scores: x, anomalies: [3], params: base({ oracle: 'rr' }) }
    const whole = runSearchTrials(ev, 'batch', 0, 12)
    const split = [...runSearchTrials(ev, 'batch', 0, 5), ...runSearchTrials(ev, 'batch', 5, 7)]
    expect(split).toEqual(whole)
    expect(aggregateSearchTrials(split)).toEqual(aggregateSearchTrials(whole))
  })

  it('randomized response with the log-odds rule stays under the Prop. 3 bound (base-2 form)', () => {
    // Mean of 200 trials against the bound: one-sided z test at alpha = 1e-4 / 3 (three settings, Bonferroni).
    const z = normalUpperQuantile(1e-4 / 3)
    for (const [eps, delta] of [
      [0.5, 0.05],
      [1, 0.01],
      [2, 0.001]
    ]) {
      const x = synthetic(500, 10, 'p3')
      const params = base({ epsilon: eps, oracle: 'rr', halting: { delta } })
      const m = runSearchTrials({ scores: x, anomalies: [10], params }, `p3/${eps}`, 0, 200)
      const q = m.map((t) => t.queries)
      const mean = q.reduce((s, v) => s + v, 0) / q.length
      const sd = Math.sqrt(q.reduce((s, v) => s + (v - mean) ** 2, 0) / (q.length - 1))
      const bound = expectedQueriesBound(500, rrFlipProbability(eps), delta)
      expect(mean - (z * sd) / Math.sqrt(q.length)).toBeLessThanOrEqual(bound)
      // The form in ALGORITHMS.md (natural logs over 1 - h_b in nats) is exceeded by the measured mean when p is near
      // 1/2 (eps = 0.5: p = 0.38), so it is not a bound; it only looks like one at large eps.
      if (eps === 0.5) {
        const asWritten = expectedQueriesBoundAsWritten(500, rrFlipProbability(eps), delta, eps)
        expect(mean - (z * sd) / Math.sqrt(q.length)).toBeGreaterThan(asWritten)
      }
    }
  })

  it('partitioned search finds each of several anomalies with a large eps, and reports its cost', () => {
    const n = 3000,
      anomalies = [11, 1500, 2999]
    const x = synthetic(n, 0, 'multi')
    x[0] = 0.3
    for (const a of anomalies) x[a] = 2
    let separated = 0
    for (let t = 0; t < 20; t++) {
      const r = partitionedSearch(x, base({ epsilon: 60, top: 1 }), 12, seededRng(`multi/${t}`))
      expect(r.subsets).toHaveLength(12)
      expect(new Set(r.subsets.flatMap((s) => s.members)).size).toBe(n)
      expect(r.totalQueries).toBe(r.subsets.reduce((s, q) => s + q.queries, 0))
      expect(r.privacyRisk).toBe(Math.max(...r.subsets.map((s) => s.privacyRisk)))
      expect(r.sequentialPrivacyRisk).toBeCloseTo(r.totalQueries * 60, 9)
      const home = anomalies.map((a) => r.subsets.findIndex((s) => s.members.includes(a)))
      if (new Set(home).size < anomalies.length) continue // two anomalies share a subset: the method's known limit
      separated++
      for (let j = 0; j < anomalies.length; j++) expect(r.subsets[home[j]].top).toEqual([anomalies[j]])
    }
    expect(separated).toBeGreaterThan(5)
  })

  it('release: needs the secure generator and a budget, shows only top-S and a snapped posterior', () => {
    const x = synthetic(800, 77, 'rel')
    const req = { epsilon: 40, tLow: 1, tHigh: 2, oracle: 'direct' as const, budget: 1000, tau: 0.5, top: 3, posteriorGrid: 0.01 }
    expect(() => releaseAnomalySearch(x, req, seededRng(1))).toThrow(/secure generator/)
    expect(() => releaseAnomalySearch(x, { ...req, budget: 0 }, SecureRandom.create())).toThrow(RangeError)
    const a = releaseAnomalySearch(x, req, SecureRandom.create())
    expect(Object.keys(a).sort()).toEqual(['haltedBy', 'posterior', 'posteriorGrid', 'privacyRisk', 'queries', 'rounds', 'top'])
    expect(a.top[0]).toBe(77)
    expect(a.top).toHaveLength(3)
    expect(a.privacyRisk).toBeLessThanOrEqual(searchReleaseCharge(req))
    // A release computes every round its budget allows (25 = 1000 / 40), whenever its answer stopped.
    expect(a.rounds).toBe(25)
    expect(a.queries).toBeLessThan(25)
    for (const p of a.posterior) expect(Math.abs(p * 100 - Math.round(p * 100))).toBeLessThan(1e-9)
    expect(a.posteriorGrid).toBe(0.01)
    expect(searchReleaseCharge({ epsilon: 0.3, budget: 1 })).toBeCloseTo(0.9, 12)
    expect(snapToGrid(0.123456, 0.001)).toBe(0.123)
  })

  it('rejects fewer than two individuals and a bad top', () => {
    expect(() => privateBinarySearch([5], base(), seededRng(1))).toThrow(RangeError)
    expect(() => privateBinarySearch([1, 5], base({ top: 0 }), seededRng(1))).toThrow(RangeError)
  })
})
